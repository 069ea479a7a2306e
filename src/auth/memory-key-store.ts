import type { KeyRecord, KeyStore } from './key-store'
import { hashKey, type KeyHasher } from './hash-key'
import { timingSafeEqual } from './timing-safe-equal'

/** One key of a memory key store: the SHA-256 of its secret, lowercase hex, and its record. */
export type HashedKey = { hash: string; record: KeyRecord }

/** Options of `createMemoryKeyStore`. */
export type MemoryKeyStoreOptions = {
  /**
   * Hashes a presented secret (default: `hashKey`, Web Crypto). A synchronous hash (`nodeHashKey`
   * on Node) makes a lookup synchronous too: no promise, no thread-pool hop.
   */
  hash?: KeyHasher | undefined
}

/**
 * A key store that keeps only SHA-256 hashes of the keys, in memory.
 *
 * A lookup hashes the presented secret and finds the record by that hash. The map lookup can only
 * leak timing about the hash, which reveals nothing usable about a secret; the final comparison
 * of the digests is constant-time all the same. Nothing is cached: the secret is hashed on every
 * lookup, so no plaintext key outlives its request.
 *
 * @example
 * const keyStore = createMemoryKeyStore([{ hash: await hashKey('sk-…'), record: { id: 'k1' } }])
 */
export function createMemoryKeyStore(
  keys: readonly HashedKey[],
  options: MemoryKeyStoreOptions = {},
): KeyStore {
  const byHash = new Map<string, HashedKey>()
  for (const key of keys) byHash.set(key.hash.toLowerCase(), key)
  const hash = options.hash ?? hashKey
  const find = (digest: string): KeyRecord | undefined => {
    const found = byHash.get(digest)
    if (found === undefined || !timingSafeEqual(found.hash.toLowerCase(), digest)) return undefined
    return found.record
  }
  return {
    lookup(secret) {
      const digest = hash(secret)
      return typeof digest === 'string' ? find(digest) : digest.then(find)
    },
  }
}
