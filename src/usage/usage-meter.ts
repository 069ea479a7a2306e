import type { UpstreamAttempt } from './upstream-attempt'
import type { MaybePromise } from '../internal/maybe-promise'
import type { MoneyBudget } from '../auth/key-store'
import type { UsageCost } from '../pricing/usage-cost'
import type { TokenEstimate, TokenUsage, UsageOutcome } from '../canonical/token-usage'
import type { BudgetPeriodKind, KeyLimitSettings, KeyLimits, LimitName } from './key-limits'

export type { TokenEstimate, TokenUsage, UsageOutcome } from '../canonical/token-usage'

/** One metered request. */
export type UsageRecord = {
  requestId: string
  keyId: string
  /** The key's team (`teams[].id`), when it has one. */
  team?: string | undefined
  /**
   * The end user the request was made for (`x-gateway-user`, the body's `user` or
   * `metadata.user_id`, or the host app's `endUser`), when it named one.
   */
  endUser?: string | undefined
  groupId: string
  providerId: string
  /** The call name the client sent. */
  model: string
  /** The model name the upstream received. */
  upstreamModel: string
  /** The client-facing route, such as `chat.completions`. */
  route: string
  stream: boolean
  /**
   * The tokens exactly as the upstream reported them. When it reported none, the gateway's
   * estimate (and `estimated` is true) if the upstream may have worked — a whole answer, a stream
   * that had begun, a client that left — else `undefined`; never a silent zero.
   */
  usage: TokenUsage | undefined
  /**
   * True when `usage` is the gateway's estimate, not the upstream's report: the reservation's
   * estimate for an answer with no usage in it, the input estimate for an aborted or failed one.
   */
  estimated?: boolean | undefined
  /**
   * What the request cost, at the price of the upstream model that answered (the price it was
   * charged at is kept in it); 0 nano-USD for a request with no usage. `null` when that model has
   * no price: unpriced, never 0. Absent from records of meters that predate prices.
   */
  cost?: UsageCost | null | undefined
  outcome: UsageOutcome
  /** The HTTP status the client received. */
  status: number
  /** Epoch milliseconds. */
  startedAt: number
  durationMs: number
  /**
   * The upstream attempts the request made, in order; the last one answered, when any did.
   * `groupId`, `providerId` and `upstreamModel` are the answering attempt's (a fallback's, when
   * it answered). Absent for a request refused before any upstream was chosen.
   */
  attempts?: readonly UpstreamAttempt[] | undefined
  /**
   * True for an answer from the response cache: `usage` is the original call's, `cost` 0 (or
   * `null` when that call was unpriced), and `savedCost` what the original call cost.
   */
  cached?: boolean | undefined
  /** A cache hit's saving: the original call's cost (`null` unpriced). */
  savedCost?: UsageCost | null | undefined
  /** `tool` for an MCP tool call (no tokens, no upstream model); absent for a model call. */
  kind?: 'tool' | undefined
}

/**
 * What a reservation charges besides tokens and money: the API key always; a team, the
 * organisation and an end user of the key when they have limits of their own.
 */
export type MeteredSubjectKind = 'key' | 'team' | 'organisation' | 'end-user'

/** A metered subject by name: what `summary` is asked about, and what a refusal names. */
export type MeteredSubjectRef = {
  kind: MeteredSubjectKind
  /** Unique within its kind; an end user's, within its key. */
  id: string
  /**
   * An end user's key, for `summary` (a reservation's end users are its key's). An end user's
   * limits are per key: two keys' users of the same id never share them.
   */
  keyId?: string | undefined
}

/** A subject a reservation charges, with its own limits (the same shapes a key has). */
export type MeteredSubject = MeteredSubjectRef & {
  /** The subject's lifetime token allowance; `undefined` means unlimited. */
  quotaTokens?: number | undefined
  /** Its window, concurrency and calendar limits; `undefined` means none. */
  limits?: KeyLimits | undefined
  /** Its money budgets; `undefined` means none. */
  budgets?: readonly MoneyBudget[] | undefined
}

/**
 * What `reserve` is asked for. The key is the first subject, named by `keyId` and limited by
 * `quotaTokens`, `limits` and `budgets`; `subjects` adds the others. A meter checks every limit of
 * every subject in one atomic step and charges all of them or none.
 */
export type ReserveRequest = {
  requestId: string
  keyId: string
  /** The key's lifetime token allowance (`quota.tokens`); `undefined` means unlimited. */
  quotaTokens: number | undefined
  /** The key's window, concurrency and calendar limits; `undefined` means none. */
  limits?: KeyLimits | undefined
  /** The key's money budgets; `undefined` means none. */
  budgets?: readonly MoneyBudget[] | undefined
  /**
   * The subjects charged besides the key (a team, the organisation, an end user), never a second
   * `key`; absent or empty: the key alone. A meter that does not list their kinds in
   * `UsageMeter.subjectKinds` must not be given them.
   */
  subjects?: readonly MeteredSubject[] | undefined
  /** A conservative guess of the tokens this request will use: input plus output. */
  estimatedTokens: number
  /** The same guess, split; meters that enforce per-minute input and output limits read it. */
  estimate?: TokenEstimate | undefined
}

/**
 * A held reservation, handed back to `settle`, `release` and `extend`. Plain data, so that a
 * meter shared between instances can settle a reservation whatever instance made it.
 */
export type Reservation = {
  id: string
  keyId: string
  /** Tokens held against the key's budgets. */
  tokens: number
  /**
   * The lease: a reservation that is neither settled, released nor extended within this many
   * milliseconds frees its capacity (an instance that crashed cannot hold it for ever). The
   * gateway calls `extend` every third of it while the request is alive. `undefined`: no lease.
   */
  leaseMs?: number | undefined
  /** The limits and estimate the reservation was checked against, for a settle that comes late. */
  settings?: KeyLimitSettings | undefined
  estimate?: TokenEstimate | undefined
  /** The subjects charged besides the key, with their limits (`ReserveRequest.subjects`). */
  subjects?: readonly MeteredSubject[] | undefined
}

/**
 * The state of one limit after a request was admitted, or for `GET /v1/usage`. The rate-limit
 * headers (`x-ratelimit-*`, `anthropic-ratelimit-*`) are built from it.
 */
export type LimitState = {
  name: LimitName
  limit: number
  /** What is left now: requests or tokens, or free concurrency slots. */
  remaining: number
  /**
   * Milliseconds until the limit is whole again: a window refilled, a budget's period over.
   * `undefined` for concurrency and the lifetime quota, which do not reset.
   */
  resetInMs?: number | undefined
  /** Budgets: tokens used in the period, and held by requests in flight. */
  used?: number | undefined
  reserved?: number | undefined
}

/** One subject's limits after a request was admitted. */
export type SubjectLimits = { subject: MeteredSubjectRef; limits: readonly LimitState[] }

/** A limit that refused a request. */
export type LimitRefusal = {
  name: LimitName
  limit: number
  /** When a retry can succeed, in milliseconds; `undefined` when waiting cannot help. */
  retryAfterMs: number | undefined
  /**
   * A budget that is not spent, but whose remainder is held by the key's requests in flight and
   * is smaller than this request's estimate: a retry once they end can succeed (429
   * `rate_limit_exceeded`, not `insufficient_quota`).
   */
  inFlight?: boolean | undefined
  /** The subject whose limit this is; absent: the key. */
  subject?: MeteredSubjectRef | undefined
}

/** The answer to `reserve`. */
export type ReserveResult =
  | {
      granted: true
      reservation: Reservation
      /** The key's limits after this request was counted, for the rate-limit headers. */
      limits?: readonly LimitState[] | undefined
      /** The other subjects' limits after it, in the order of `ReserveRequest.subjects`. */
      subjectLimits?: readonly SubjectLimits[] | undefined
    }
  | {
      granted: false
      /**
       * `quota_exceeded`: a token budget is spent (429 `insufficient_quota`); `budget_exceeded`: a
       * money budget is spent (429 `budget_exceeded`); `rate_limited`: a window or the
       * concurrency limit (429 `rate_limit_exceeded`); `unavailable`: the shared store could not
       * be asked and the policy is to refuse (503).
       */
      reason: 'quota_exceeded' | 'budget_exceeded' | 'rate_limited' | 'unavailable'
      retryAfterSeconds?: number | undefined
      /** The limit that refused, with the longest wait when several did. */
      refusal?: LimitRefusal | undefined
    }

/** A money budget whose alert threshold a settle crossed (once per period). */
export type BudgetCrossing = {
  /** The subject whose budget it is; absent: the key. */
  subject?: MeteredSubjectRef | undefined
  per: BudgetPeriodKind
  limitNanoUsd: number
  alertAtNanoUsd: number
  /** Spent in the period with the request counted. */
  spentNanoUsd: number
  /** Milliseconds until the period ends; `undefined` for a lifetime budget. */
  resetInMs: number | undefined
}

/**
 * What `settle` may answer: the alert thresholds it crossed, and, when the store did not take all
 * of it yet, `retrying`: the rest being tried again in the background, with what it crossed. The
 * gateway writes the request's ledger row once `retrying` ends (a budget re-seeded from the
 * ledger meanwhile must not count the request before the store does).
 */
export type SettleResult = {
  alerts?: readonly BudgetCrossing[] | undefined
  retrying?: Promise<SettleResult | undefined> | undefined
}

/** A subject's running totals (a key's, or a team's, organisation's or end user's). */
export type KeyUsageSummary = {
  requests: number
  inputTokens: number
  outputTokens: number
  cachedInputTokens: number
  totalTokens: number
  /** Tokens held by requests still in flight. */
  reservedTokens: number
  /**
   * What the key's priced requests cost together (charged, nano-USD), and how many requests were
   * on unpriced models; absent from meters that predate prices.
   */
  costNanoUsd?: number | undefined
  unpricedRequests?: number | undefined
  /**
   * Requests answered from the response cache (counted in `requests` too) and the money they
   * saved (the original calls' cost, nano-USD); absent from meters that do not count them.
   */
  cacheHits?: number | undefined
  savedCostNanoUsd?: number | undefined
  /** The state of each limit the key has, when `summary` was given its settings. */
  limits?: readonly LimitState[] | undefined
}

/**
 * Meters usage per subject — the key, and the team, organisation and end user a request names —
 * and enforces their limits. The flow is reserve → settle (or release):
 * - `reserve` admits a request before any upstream call, checking every limit of every subject in
 *   one atomic step (all or nothing) and holding an estimate, so that concurrent requests cannot
 *   all pass on the same remaining capacity;
 * - `settle` records what the request really used against every subject and drops the holds;
 * - `release` drops the hold of a request that never reached an upstream;
 * - `extend` renews the lease of a request still alive (a long stream).
 *
 * `settle` and `release` are idempotent by reservation id: a second settle, a release of an
 * unknown id and a settle after a release do nothing; a settle that comes after the lease expired
 * counts its usage once.
 *
 * Stores shared between instances (`model-gateway/redis`) make each step atomic;
 * `createMemoryUsageMeter` is the built-in single-process one.
 */
export interface UsageMeter {
  /**
   * The kinds of subject this meter enforces besides the key (`ReserveRequest.subjects`); absent:
   * the key only. It lets a gateway that has teams, an organisation budget or end-user limits
   * refuse to start on a meter that would silently ignore them.
   */
  readonly subjectKinds?: readonly MeteredSubjectKind[] | undefined
  reserve(request: ReserveRequest): MaybePromise<ReserveResult>
  /** Counts a request; may say which money budgets' alert thresholds it crossed. */
  settle(reservation: Reservation, record: UsageRecord): MaybePromise<SettleResult | void>
  release(reservation: Reservation): MaybePromise<void>
  /** Renews a reservation's lease; meters without leases leave it out. */
  extend?(reservation: Reservation): MaybePromise<void>
  /**
   * Called by `close()` once requests have ended: settles retried in the background get one more
   * try, then are given up, and their ledger rows written. A meter that wraps another forwards it.
   */
  drain?(): void
  /**
   * A subject's totals and, given its settings, the state of each of its limits, for
   * `GET /v1/usage`: a key by its id, another subject by kind and id.
   */
  summary(
    subject: string | MeteredSubjectRef,
    settings?: KeyLimitSettings,
  ): MaybePromise<KeyUsageSummary>
}
