import type { MaybePromise } from '../internal/maybe-promise'

/**
 * Where the response cache keeps its entries: a key (a hex SHA-256 digest the cache computed) to
 * an entry's stored text, each with its own lifetime. `createMemoryResponseCache` is the default;
 * `createRedisResponseCache` (`model-gateway/redis`) shares entries between instances.
 *
 * A store that fails or is slow never fails a request: the cache bounds each call and reads a
 * failure as a miss (docs/response-cache.md).
 */
export interface ResponseCacheStore {
  /** The entry's text, or `undefined` when there is none or it has expired. */
  get(key: string): MaybePromise<string | undefined>
  /** Keeps `value` under `key` for `ttlMs` milliseconds, replacing any entry there. */
  set(key: string, value: string, ttlMs: number): MaybePromise<void>
}

/** Bounds of the in-process store. */
export type MemoryResponseCacheOptions = {
  /** The most entries kept (default 10 000); the oldest goes first. */
  maxEntries?: number
  /** The most bytes of entry text kept, counted as UTF-16 length × 2 (default 64 MiB). */
  maxBytes?: number
  /** The clock (default `Date.now`). */
  now?: () => number
}

type Stored = { value: string; expiresAt: number; bytes: number }

/**
 * The default store: this process's memory, bounded in entries and bytes; when either bound is
 * passed, the oldest entries go first (a `Map` keeps insertion order, and a write re-inserts).
 * Expired entries are dropped when read, or when the bounds need room.
 */
export function createMemoryResponseCache(
  options: MemoryResponseCacheOptions = {},
): ResponseCacheStore & { readonly size: number; readonly bytes: number } {
  const maxEntries = options.maxEntries ?? 10_000
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024
  const now = options.now ?? Date.now
  const entries = new Map<string, Stored>()
  let bytes = 0
  const drop = (key: string, stored: Stored) => {
    entries.delete(key)
    bytes -= stored.bytes
  }
  return {
    get size() {
      return entries.size
    },
    get bytes() {
      return bytes
    },
    get(key) {
      const stored = entries.get(key)
      if (stored === undefined) return undefined
      if (stored.expiresAt <= now()) {
        drop(key, stored)
        return undefined
      }
      return stored.value
    },
    set(key, value, ttlMs) {
      const size = value.length * 2
      const old = entries.get(key)
      if (old !== undefined) drop(key, old)
      if (size > maxBytes || ttlMs <= 0) return
      for (const [oldest, stored] of entries) {
        if (entries.size < maxEntries && bytes + size <= maxBytes) break
        drop(oldest, stored)
      }
      entries.set(key, { value, expiresAt: now() + ttlMs, bytes: size })
      bytes += size
    },
  }
}
