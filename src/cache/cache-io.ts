import { isJsonObject, parseJson } from '../internal/json'
import type { CacheEntry } from './cache-entry'
import type { ResponseCacheStore } from './cache-store'

/**
 * The longest a cache read or write may take: past it a read is a miss, a write is given up. A
 * cache is worth a few milliseconds of a request's time, and a store that is down must not add
 * more than that to every request (docs/response-cache.md).
 */
export const cacheTimeoutMs = 100

/** `promise`, or `undefined` once `cacheTimeoutMs` has passed or when it fails. */
export function withCacheBound<T>(promise: Promise<T>): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), cacheTimeoutMs)
  })
  return Promise.race([promise.catch(() => undefined), timeout]).finally(() => clearTimeout(timer))
}

/** The entry under `key`, or `undefined`: none, unreadable, or the store failed or was slow. */
export async function readEntry(
  store: ResponseCacheStore,
  key: string,
): Promise<CacheEntry | undefined> {
  let text: string | undefined
  try {
    const read = store.get(key)
    text = read instanceof Promise ? await withCacheBound(read) : read
  } catch {
    return undefined
  }
  if (typeof text !== 'string') return undefined
  const parsed = parseJson(text)
  if (!parsed.ok || !isJsonObject(parsed.value) || parsed.value['v'] !== 1) return undefined
  const entry = parsed.value as unknown as CacheEntry
  if (!isJsonObject(entry.response) || !Array.isArray(entry.response.content)) return undefined
  return entry
}

/** Writes the entry for `ttlSeconds`, unless its stored form is over `maxBytes` (UTF-8). */
export async function storeEntry(
  store: ResponseCacheStore,
  key: string,
  entry: CacheEntry,
  maxBytes: number,
  ttlSeconds: number,
): Promise<void> {
  const text = JSON.stringify(entry)
  // UTF-8 is at most 3 bytes per UTF-16 unit: only a text near the bound is measured exactly.
  if (text.length * 3 > maxBytes && new TextEncoder().encode(text).length > maxBytes) return
  await store.set(key, text, ttlSeconds * 1000)
}
