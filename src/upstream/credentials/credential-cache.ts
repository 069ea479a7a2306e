/**
 * A credential with the time it stops working: an access token, a set of short-lived cloud keys.
 * `expiresAt` is epoch milliseconds; `undefined` means it does not expire (a static key).
 */
export type ExpiringCredential<T> = {
  readonly value: T
  readonly expiresAt?: number | undefined
}

/** Fetches a fresh credential: a token endpoint, a metadata server, a callback in code. */
export type CredentialSource<T> = () => Promise<ExpiringCredential<T>>

/** Settings of a credential cache. */
export type CredentialCacheOptions = {
  /** The clock, in epoch milliseconds; the gateway's own by default. */
  now?: (() => number) | undefined
  /**
   * How long before expiry a credential is refreshed: 5 minutes by default, the margin the
   * clouds' own SDKs keep, so a request signed just before expiry never reaches the cloud after it.
   */
  refreshMarginMs?: number | undefined
  /**
   * The longest a fetch may take: 30 s by default. A token endpoint or a callback that never
   * answers would otherwise hold every call waiting on the single flight.
   */
  fetchTimeoutMs?: number | undefined
  /**
   * How long a failed fetch is answered from memory, without fetching again: 1 s by default, so a
   * token endpoint that is down gets one fetch per second, not one per request.
   */
  failureHoldMs?: number | undefined
}

/**
 * The one place a short-lived credential is kept, shared by every call of an upstream (and by
 * every upstream that names the same source).
 */
export interface CredentialCache<T> {
  /**
   * The credential to use now: the cached one until `refreshMarginMs` before it expires, else a
   * fresh one. Fetches are single-flight: a burst of calls that find no usable credential waits on
   * one fetch. A failed fetch is not cached: the next call tries again. When a refresh fails while
   * the cached credential has not yet expired, that one is used.
   */
  get(): Promise<T>
  /**
   * Forgets `stale`, the credential an upstream just refused as expired or revoked, so that the
   * next `get` fetches a fresh one. When the cache already holds another credential (a refresh
   * that raced the refusal), it is kept: a burst of refusals of one token refreshes once.
   */
  invalidate(stale: T): void
  /** The credential held now, without fetching: for the list of values errors are scrubbed of. */
  peek(): T | undefined
  /** How many fetches the cache has started: for tests and the closing figures. */
  readonly fetches: number
}

/** The margin the AWS, Google and Azure SDKs refresh credentials ahead of expiry by. */
export const defaultRefreshMarginMs = 5 * 60_000

/**
 * A cache over `source` (see `CredentialCache`). Runtime-neutral: a refresh happens on the first
 * call that needs it, never on a timer; the only timer bounds a fetch in flight.
 */
export function createCredentialCache<T>(
  source: CredentialSource<T>,
  options: CredentialCacheOptions = {},
): CredentialCache<T> {
  const now = options.now ?? Date.now
  const margin = options.refreshMarginMs ?? defaultRefreshMarginMs
  let held: ExpiringCredential<T> | undefined
  /** When `held` is refreshed: the margin before expiry, or half its life when that is shorter. */
  let refreshAt = Number.POSITIVE_INFINITY
  let pending: Promise<ExpiringCredential<T>> | undefined
  let fetches = 0
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 30_000
  const failureHoldMs = options.failureHoldMs ?? 1_000
  /** The last failure and until when it is answered without a fetch. */
  let failure: { error: unknown; until: number } | undefined

  const fresh = (credential: ExpiringCredential<T>): boolean =>
    credential === held && now() < refreshAt
  const unexpired = (credential: ExpiringCredential<T>): boolean =>
    credential.expiresAt === undefined || now() < credential.expiresAt

  const refresh = (): Promise<ExpiringCredential<T>> => {
    if (pending !== undefined) return pending
    if (failure !== undefined && now() < failure.until) return Promise.reject(failure.error)
    fetches += 1
    const fetching = (async () => {
      try {
        const credential = await withTimeout(source(), fetchTimeoutMs)
        failure = undefined
        const fetchedAt = now()
        // A credential issued with less than twice the margin to live (some metadata servers
        // hand out ones near their end) is refreshed at half its life, not at once, every call.
        refreshAt =
          credential.expiresAt === undefined
            ? Number.POSITIVE_INFINITY
            : credential.expiresAt - Math.min(margin, (credential.expiresAt - fetchedAt) / 2)
        held = credential
        return credential
      } catch (error) {
        failure = { error, until: now() + failureHoldMs }
        throw error
      } finally {
        pending = undefined
      }
    })()
    pending = fetching
    return fetching
  }

  return {
    async get() {
      const current = held
      if (current !== undefined && fresh(current)) return current.value
      try {
        return (await refresh()).value
      } catch (error) {
        // Still valid, only inside the margin: better a credential with minutes left than none.
        if (current !== undefined && held === current && unexpired(current)) return current.value
        throw error
      }
    },
    invalidate(stale) {
      if (held !== undefined && held.value === stale) held = undefined
    },
    peek: () => held?.value,
    get fetches() {
      return fetches
    },
  }
}

/** `promise`, or a rejection once `ms` have passed without it settling. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`The credential source did not answer within ${ms} ms.`)),
      ms,
    )
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
