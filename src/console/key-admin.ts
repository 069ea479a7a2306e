import type { PostgresOptions } from '../postgres/client'
import { createKey, getKey, listKeys, revokeKey, updateKey } from '../postgres/key-admin'
import type { CreateKeyInput, UpdateKeyInput } from '../postgres/key-input'
import type { StoredKey } from '../postgres/stored-key'
import type { TeamCheck } from '../postgres/team-check'

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
  /** `check.otherTeams`: teams a key may name that the store does not keep (the config's). */
  create(input: CreateKeyInput, check?: TeamCheck): Promise<{ key: string; stored: StoredKey }>
  update(id: string, changes: UpdateKeyInput, check?: TeamCheck): Promise<StoredKey | undefined>
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
    create: (input, check) => createKey(options, input, check),
    update: (id, changes, check) => updateKey(options, id, changes, check),
    revoke: (id) => revokeKey(options, id),
  }
}
