import { hashKey } from '../auth/hash-key'
import type { KeyRecord } from '../auth/key-store'
import { timingSafeEqual } from '../auth/timing-safe-equal'
import { GatewayError } from '../errors'
import type { ListenSubscription, PostgresListener, PostgresOptions } from './client'
import { createKeyCache, type CachedKey } from './key-cache'
import { publicIdOf } from './key-format'
import { createLoudLog, describeError } from './loud-log'
import { readStoredKey, storedKeyColumns, toKeyRecord } from './stored-key'
import { resolveTables } from './tables'

/** Options of `createPostgresKeyStore`. */
export type PostgresKeyStoreOptions = PostgresOptions & {
  /**
   * Receives key changes (`LISTEN`): every instance drops its cached copy of a changed key at
   * once. Without one, a revoked or updated key is seen after `cacheTtlMs` at most.
   */
  listener?: PostgresListener | undefined
  /** How long a found key is cached (default 5000 ms; 0 turns the cache off). */
  cacheTtlMs?: number | undefined
  /** How long an unknown public id is cached (default 5000 ms). */
  negativeCacheTtlMs?: number | undefined
  /** Most public ids cached at once (default 10000). */
  maxCacheEntries?: number | undefined
  now?: (() => number) | undefined
}

/** A key store over Postgres (a `KeyStore`), with the controls a process needs. */
export type PostgresKeyStore = {
  /** The record for this key, or `undefined`; rejects with a 503 `GatewayError` when Postgres fails. */
  lookup(secret: string): Promise<KeyRecord | undefined>
  /** Resolves once the change listener is subscribed (at once without a listener). */
  ready(): Promise<void>
  /** Unsubscribes from key changes. */
  close(): Promise<void>
  /** Whether cached entries are being used: always without a listener, else while it is connected. */
  readonly caching: boolean
}

/**
 * Keys in Postgres, looked up by the public id in `sk-mg-<public id>-<secret>`: one indexed row
 * read, then a constant-time comparison of SHA-256 digests. Keys of any other shape (the config's)
 * are not this store's and are answered `undefined` without a query.
 *
 * Lookups are cached for a few seconds, found and not found alike, and concurrent lookups of one
 * id share one query. With a `listener`, every change to the keys table (the admin functions, the
 * CLI, or an operator's own SQL, through a trigger) drops the cached entry on every instance within
 * the notification's latency. While the listening connection is down, nothing is served from the
 * cache, and it is emptied when the connection returns, since notifications sent meanwhile are
 * lost: the worst case, a notification lost without the connection being seen to fail, is
 * `cacheTtlMs`.
 *
 * A database failure answers 503 (`overloaded`) with `retry-after: 1`, never 401: a client whose
 * key is valid must not be told otherwise.
 */
export function createPostgresKeyStore(options: PostgresKeyStoreOptions): PostgresKeyStore {
  const tables = resolveTables(options)
  const now = options.now ?? Date.now
  const cache = createKeyCache({
    ttlMs: options.cacheTtlMs ?? 5000,
    negativeTtlMs: options.negativeCacheTtlMs ?? 5000,
    maxEntries: options.maxCacheEntries ?? 10_000,
    now,
  })
  const loading = new Map<string, Promise<CachedKey>>()
  const logFailure = createLoudLog()
  // Bumped by every invalidation: a query that started before one must not cache what it read.
  let epoch = 0
  let caching = options.listener === undefined
  const invalidate = (publicId?: string) => {
    epoch += 1
    if (publicId === undefined) {
      cache.clear()
      loading.clear()
    } else {
      cache.delete(publicId)
      loading.delete(publicId)
    }
  }

  let subscription: ListenSubscription | undefined
  const subscribed: Promise<void> =
    options.listener === undefined
      ? Promise.resolve()
      : options.listener
          .listen(tables.keyChannel, {
            onNotification: (payload) => invalidate(payload),
            onConnected: () => {
              invalidate()
              caching = true
            },
            onDisconnected: (error) => {
              caching = false
              invalidate()
              logFailure(
                'key change listener disconnected; keys are read from Postgres on every request until it reconnects',
                error,
              )
            },
          })
          .then((value) => {
            subscription = value
          })
  subscribed.catch((error: unknown) =>
    console.error('[model-gateway] cannot listen for key changes:', describeError(error)),
  )

  const load = (publicId: string): Promise<CachedKey> => {
    const pending = loading.get(publicId)
    if (pending !== undefined) return pending
    const startedIn = epoch
    const query = options.client
      .query(`SELECT ${storedKeyColumns}, secret_hash FROM ${tables.keys} WHERE public_id = $1`, [
        publicId,
      ])
      .then(({ rows }): CachedKey => {
        const row = rows[0]
        if (row === undefined) return { found: false }
        return {
          found: true,
          secretHash: String(row.secret_hash),
          record: toKeyRecord(readStoredKey(row)),
        }
      })
      .then(
        (value) => {
          if (loading.get(publicId) === query) loading.delete(publicId)
          if (caching && epoch === startedIn) cache.set(publicId, value)
          return value
        },
        (error: unknown) => {
          if (loading.get(publicId) === query) loading.delete(publicId)
          logFailure('key lookup in Postgres failed', error)
          throw new GatewayError('overloaded', 'The key store is unavailable; try again shortly.', {
            status: 503,
            cause: error,
            headers: { 'retry-after': '1' },
          })
        },
      )
    loading.set(publicId, query)
    return query
  }

  return {
    async lookup(secret) {
      const publicId = publicIdOf(secret)
      if (publicId === undefined) return undefined
      const [hash, found] = await Promise.all([
        hashKey(secret),
        (caching ? cache.get(publicId) : undefined) ?? load(publicId),
      ])
      if (!found.found || !timingSafeEqual(found.secretHash, hash)) return undefined
      return found.record
    },
    ready: () => subscribed,
    async close() {
      await subscribed.catch(() => undefined)
      await subscription?.close()
      caching = false
      invalidate()
    },
    get caching() {
      return caching
    },
  }
}
