import type { KeyRecord } from '../auth/key-store'

/** What the cache knows of a public id: the key's digest and record, or that no key has it. */
export type CachedKey = { found: true; secretHash: string; record: KeyRecord } | { found: false }

type Entry = { value: CachedKey; expiresAt: number }

/** Options of the key cache. */
export type KeyCacheOptions = {
  ttlMs: number
  negativeTtlMs: number
  maxEntries: number
  now: () => number
}

/**
 * A short-lived cache of key lookups by public id. It holds SHA-256 digests, never a secret: a
 * presented key is hashed and compared with the cached digest on every request. Bounded in size
 * (oldest entries go first), so random public ids sent by an attacker cannot grow it without end.
 */
export function createKeyCache(options: KeyCacheOptions) {
  const entries = new Map<string, Entry>()
  return {
    get(publicId: string): CachedKey | undefined {
      const entry = entries.get(publicId)
      if (entry === undefined) return undefined
      if (entry.expiresAt <= options.now()) {
        entries.delete(publicId)
        return undefined
      }
      return entry.value
    },
    set(publicId: string, value: CachedKey): void {
      const ttl = value.found ? options.ttlMs : options.negativeTtlMs
      if (ttl <= 0) return
      entries.delete(publicId)
      entries.set(publicId, { value, expiresAt: options.now() + ttl })
      // Maps iterate in insertion order: the first key is the oldest entry.
      while (entries.size > options.maxEntries) entries.delete(entries.keys().next().value!)
    },
    delete(publicId: string): void {
      entries.delete(publicId)
    },
    clear(): void {
      entries.clear()
    },
    get size(): number {
      return entries.size
    },
  }
}
