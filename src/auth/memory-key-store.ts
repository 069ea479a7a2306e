import type { KeyRecord, KeyStore } from './key-store'
import { hashKey } from './hash-key'
import { timingSafeEqual } from './timing-safe-equal'

/** One key of a memory key store: the SHA-256 of its secret, lowercase hex, and its record. */
export type HashedKey = { hash: string; record: KeyRecord }

/**
 * A key store that keeps only SHA-256 hashes of the keys, in memory.
 *
 * A lookup hashes the presented secret and finds the record by that hash. The map lookup can only
 * leak timing about the hash, which reveals nothing usable about a secret; the final comparison
 * of the digests is constant-time all the same.
 *
 * @example
 * const keyStore = createMemoryKeyStore([{ hash: await hashKey('sk-…'), record: { id: 'k1' } }])
 */
export function createMemoryKeyStore(keys: readonly HashedKey[]): KeyStore {
  const byHash = new Map<string, HashedKey>()
  for (const key of keys) byHash.set(key.hash.toLowerCase(), key)
  return {
    async lookup(secret) {
      const hash = await hashKey(secret)
      const found = byHash.get(hash)
      if (found === undefined || !timingSafeEqual(found.hash.toLowerCase(), hash)) return undefined
      return found.record
    },
  }
}
