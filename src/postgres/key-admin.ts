import { hashKey } from '../auth/hash-key'
import type { MoneyBudget } from '../auth/key-store'
import type { PostgresOptions } from './client'
import { generateDatabaseKey } from './key-format'
import {
  createKeyInputSchema,
  KeyAdminError,
  parseKeyInput,
  updateKeyInputSchema,
  type CreateKeyInput,
  type UpdateKeyInput,
} from './key-input'
import { readStoredKey, storedKeyColumns, type StoredKey } from './stored-key'
import { resolveTables } from './tables'
import { checkTeam, type TeamCheck } from './team-check'

/** A key just created: its secret, shown this once, and what is stored. */
export type CreatedKey = { key: string; stored: StoredKey }

/**
 * Creates a database key. The secret is returned once and never stored: the table holds its
 * SHA-256. Every instance sees the new key at once (a negative cache entry for its id is dropped
 * by the change notification). A `team` must be a team of the teams table, or one of
 * `check.otherTeams` (the config's teams).
 *
 * @throws KeyAdminError for bad input, an id already taken or an unknown team
 * @example
 * const { key, stored } = await createKey({ client: pool }, { name: 'team-a', quotaTokens: 1_000_000 })
 */
export async function createKey(
  options: PostgresOptions,
  input: CreateKeyInput = {},
  check: TeamCheck = {},
): Promise<CreatedKey> {
  const tables = resolveTables(options)
  const valid = parseKeyInput(createKeyInputSchema, input)
  if (valid.team !== undefined) await checkTeam(options, valid.team, check)
  // A public id collision is a 1-in-36^12 event per pair; retry rather than fail if it happens.
  for (let attempt = 0; ; attempt += 1) {
    const { key, publicId } = generateDatabaseKey()
    try {
      const { rows } = await options.client.query(
        `INSERT INTO ${tables.keys}
           (id, public_id, secret_hash, name, groups, quota_tokens, limits, expires_at, budget,
            price_multiplier, team)
         VALUES ($1, $2, $3, $4, $5::text::jsonb, $6::bigint, $7::text::jsonb, $8::timestamptz,
           $9::text::jsonb, $10::double precision, $11)
         RETURNING ${storedKeyColumns}`,
        [
          valid.id ?? `key_${publicId}`,
          publicId,
          await hashKey(key),
          valid.name ?? null,
          valid.groups === undefined ? null : JSON.stringify(valid.groups),
          valid.quotaTokens === undefined ? null : String(valid.quotaTokens),
          JSON.stringify(valid.limits ?? {}),
          toTimestamp(valid.expiresAt),
          budgetJson(valid.budget),
          valid.priceMultiplier === undefined ? null : String(valid.priceMultiplier),
          valid.team ?? null,
        ],
      )
      return { key, stored: readStoredKey(rows[0]!) }
    } catch (error) {
      if (uniqueViolation(error) === 'id') {
        throw new KeyAdminError(`A key with id "${valid.id}" exists already.`)
      }
      if (uniqueViolation(error) !== 'public_id' || attempt >= 2) throw error
    }
  }
}

/** Every database key, oldest first; revoked ones only when asked; one team's only when asked. */
export async function listKeys(
  options: PostgresOptions,
  filter: { includeRevoked?: boolean; team?: string } = {},
): Promise<StoredKey[]> {
  const tables = resolveTables(options)
  const where = [
    ...(filter.includeRevoked === true ? [] : ['revoked_at IS NULL']),
    ...(filter.team === undefined ? [] : ['team = $1']),
  ]
  const { rows } = await options.client.query(
    `SELECT ${storedKeyColumns} FROM ${tables.keys}
     ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
     ORDER BY created_at, id`,
    filter.team === undefined ? [] : [filter.team],
  )
  return rows.map(readStoredKey)
}

/** One key by id, or `undefined`. */
export async function getKey(options: PostgresOptions, id: string): Promise<StoredKey | undefined> {
  const tables = resolveTables(options)
  const { rows } = await options.client.query(
    `SELECT ${storedKeyColumns} FROM ${tables.keys} WHERE id = $1`,
    [id],
  )
  return rows[0] === undefined ? undefined : readStoredKey(rows[0])
}

/**
 * Revokes a key for good: every instance refuses it within the documented bound (the change
 * notification, or the key cache's lifetime if a notification is lost). Revoking twice keeps the
 * first revocation time.
 *
 * @returns the revoked key, or `undefined` when no key has this id
 */
export async function revokeKey(
  options: PostgresOptions,
  id: string,
): Promise<StoredKey | undefined> {
  const tables = resolveTables(options)
  const { rows } = await options.client.query(
    `UPDATE ${tables.keys} SET revoked_at = coalesce(revoked_at, now()), updated_at = now()
     WHERE id = $1 RETURNING ${storedKeyColumns}`,
    [id],
  )
  return rows[0] === undefined ? undefined : readStoredKey(rows[0])
}

/**
 * Changes a key's name, groups, quota, limits, money budgets, price multiplier, expiry or team.
 * Absent fields stay; `null` clears one (no quota, every group, no budget, no expiry, no team);
 * `limits` is merged, a `null` limit removed; `budget` replaces the key's budgets whole.
 *
 * @returns the updated key, or `undefined` when no key has this id
 * @throws KeyAdminError for bad input or an unknown team
 */
export async function updateKey(
  options: PostgresOptions,
  id: string,
  changes: UpdateKeyInput,
  check: TeamCheck = {},
): Promise<StoredKey | undefined> {
  const tables = resolveTables(options)
  const valid = parseKeyInput(updateKeyInputSchema, changes)
  if (typeof valid.team === 'string') await checkTeam(options, valid.team, check)
  const params: unknown[] = [id]
  const sets: string[] = []
  const set = (column: string, value: unknown, cast = '') => {
    params.push(value)
    sets.push(`${column} = $${params.length}${cast}`)
  }
  if (valid.name !== undefined) set('name', valid.name)
  if (valid.groups !== undefined) {
    set('groups', valid.groups === null ? null : JSON.stringify(valid.groups), '::text::jsonb')
  }
  if (valid.quotaTokens !== undefined) {
    set('quota_tokens', valid.quotaTokens === null ? null : String(valid.quotaTokens), '::bigint')
  }
  if (valid.limits !== undefined) {
    params.push(JSON.stringify(valid.limits))
    sets.push(`limits = jsonb_strip_nulls(limits || $${params.length}::text::jsonb)`)
  }
  if (valid.budget !== undefined) set('budget', budgetJson(valid.budget), '::text::jsonb')
  if (valid.priceMultiplier !== undefined) {
    const multiplier = valid.priceMultiplier
    set('price_multiplier', multiplier === null ? null : String(multiplier), '::double precision')
  }
  if (valid.expiresAt !== undefined)
    set('expires_at', toTimestamp(valid.expiresAt), '::timestamptz')
  if (valid.team !== undefined) set('team', valid.team)
  sets.push('updated_at = now()')
  const { rows } = await options.client.query(
    `UPDATE ${tables.keys} SET ${sets.join(', ')} WHERE id = $1 RETURNING ${storedKeyColumns}`,
    params,
  )
  return rows[0] === undefined ? undefined : readStoredKey(rows[0])
}

/** Budgets as stored: always a list, one per period. */
function budgetJson(
  budget: MoneyBudget | readonly MoneyBudget[] | null | undefined,
): string | null {
  if (budget === undefined || budget === null) return null
  return JSON.stringify(Array.isArray(budget) ? budget : [budget])
}

function toTimestamp(value: Date | string | null | undefined): string | null {
  if (value === undefined || value === null) return null
  return typeof value === 'string' ? value : value.toISOString()
}

/** Which unique constraint a driver error violated (SQLSTATE 23505), if any. */
function uniqueViolation(error: unknown): 'id' | 'public_id' | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const { code, constraint, constraint_name, detail } = error as Record<string, unknown>
  if (code !== '23505') return undefined
  // pg names the constraint in `constraint`, postgres.js in `constraint_name`.
  const name = String(constraint ?? constraint_name ?? detail ?? '')
  return name.includes('public_id') ? 'public_id' : 'id'
}
