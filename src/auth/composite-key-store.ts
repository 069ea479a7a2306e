import type { KeyStore } from './key-store'

/**
 * Asks several key stores in turn and answers with the first record found: how keys in the config
 * file keep working beside keys in a database (`keys` and `keyStore` together). An error from a
 * store (a database outage) is thrown, not taken as "unknown key", so a valid key is never told it
 * is invalid.
 *
 * @example
 * const keyStore = createCompositeKeyStore([configKeys, createPostgresKeyStore({ client: pool })])
 */
export function createCompositeKeyStore(stores: readonly KeyStore[]): KeyStore {
  return {
    async lookup(secret) {
      for (const store of stores) {
        const record = await store.lookup(secret)
        if (record !== undefined) return record
      }
      return undefined
    },
  }
}
