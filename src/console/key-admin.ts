import type { PostgresOptions } from '../postgres/client'
import { createKey, getKey, listKeys, revokeKey, updateKey } from '../postgres/key-admin'
import type { CreateKeyInput, UpdateKeyInput } from '../postgres/key-input'
import type { StoredKey } from '../postgres/stored-key'

/**
 * Where the console creates, edits and revokes keys. The secret of a new key is handed back once
 * and never kept: only its SHA-256. Inputs are validated as `model-gateway keys` validates them;
 * bad input throws `KeyAdminError` with a message fit to show.
 */
export interface KeyAdmin {
  /** `postgres` keys survive restarts and reach every instance; `memory` keys live in this process. */
  readonly kind: 'postgres' | 'memory'
  list(options?: { includeRevoked?: boolean }): Promise<StoredKey[]>
  get(id: string): Promise<StoredKey | undefined>
  create(input: CreateKeyInput): Promise<{ key: string; stored: StoredKey }>
  update(id: string, changes: UpdateKeyInput): Promise<StoredKey | undefined>
  revoke(id: string): Promise<StoredKey | undefined>
}

/**
 * The key admin over Postgres: the functions `model-gateway keys` runs. Every instance's key store
 * sees a change within its notification (or its key cache's lifetime).
 *
 * @example
 * createConsole(gateway, { keys: createPostgresKeyAdmin({ client: pool }) })
 */
export function createPostgresKeyAdmin(options: PostgresOptions): KeyAdmin {
  return {
    kind: 'postgres',
    list: (filter) => listKeys(options, filter),
    get: (id) => getKey(options, id),
    create: (input) => createKey(options, input),
    update: (id, changes) => updateKey(options, id, changes),
    revoke: (id) => revokeKey(options, id),
  }
}
