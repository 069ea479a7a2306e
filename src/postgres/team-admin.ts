import type { MoneyBudget } from '../auth/key-store'
import type { PostgresOptions } from './client'
import { KeyAdminError, parseKeyInput } from './key-input'
import { readStoredTeam, storedTeamColumns, type StoredTeam } from './stored-team'
import { resolveTables } from './tables'
import {
  createTeamInputSchema,
  updateTeamInputSchema,
  type CreateTeamInput,
  type UpdateTeamInput,
} from './team-input'

/**
 * Creates a team of database keys. Keys join it with `createKey(…, { team })` or
 * `updateKey(…, { team })`; every request of a key in it must then fit the team's limits too.
 *
 * @throws KeyAdminError for bad input or an id already taken
 * @example
 * await createTeam({ client: pool }, { id: 'data', name: 'Data team', budget: { usd: 500, per: 'month' } })
 */
export async function createTeam(
  options: PostgresOptions,
  input: CreateTeamInput,
): Promise<StoredTeam> {
  const tables = resolveTables(options)
  const valid = parseKeyInput(createTeamInputSchema, input)
  try {
    const { rows } = await options.client.query(
      `INSERT INTO ${tables.teams} (id, name, groups, quota_tokens, limits, budget)
       VALUES ($1, $2, $3::text::jsonb, $4::bigint, $5::text::jsonb, $6::text::jsonb)
       RETURNING ${storedTeamColumns}`,
      [
        valid.id,
        valid.name ?? null,
        valid.groups === undefined ? null : JSON.stringify(valid.groups),
        valid.quotaTokens === undefined ? null : String(valid.quotaTokens),
        JSON.stringify(valid.limits ?? {}),
        budgetJson(valid.budget),
      ],
    )
    return readStoredTeam(rows[0]!)
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === '23505') {
      throw new KeyAdminError(`A team with id "${valid.id}" exists already.`)
    }
    throw error
  }
}

/** Every team of the teams table, by id. */
export async function listTeams(options: PostgresOptions): Promise<StoredTeam[]> {
  const tables = resolveTables(options)
  const { rows } = await options.client.query(
    `SELECT ${storedTeamColumns} FROM ${tables.teams} ORDER BY id`,
  )
  return rows.map(readStoredTeam)
}

/** One team by id, or `undefined`. */
export async function getTeam(
  options: PostgresOptions,
  id: string,
): Promise<StoredTeam | undefined> {
  const tables = resolveTables(options)
  const { rows } = await options.client.query(
    `SELECT ${storedTeamColumns} FROM ${tables.teams} WHERE id = $1`,
    [id],
  )
  return rows[0] === undefined ? undefined : readStoredTeam(rows[0])
}

/**
 * Changes a team's name, groups, quota, limits or money budgets. Absent fields stay; `null` clears
 * one; `limits` is merged, a `null` limit removed; `budget` replaces the team's budgets whole.
 * Gateways see the change within their team cache's lifetime (`createPostgresTeamStore`).
 *
 * @returns the updated team, or `undefined` when no team has this id
 * @throws KeyAdminError for bad input
 */
export async function updateTeam(
  options: PostgresOptions,
  id: string,
  changes: UpdateTeamInput,
): Promise<StoredTeam | undefined> {
  const tables = resolveTables(options)
  const valid = parseKeyInput(updateTeamInputSchema, changes)
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
  sets.push('updated_at = now()')
  const { rows } = await options.client.query(
    `UPDATE ${tables.teams} SET ${sets.join(', ')} WHERE id = $1 RETURNING ${storedTeamColumns}`,
    params,
  )
  return rows[0] === undefined ? undefined : readStoredTeam(rows[0])
}

/** Budgets as stored: always a list, one per period. */
function budgetJson(
  budget: MoneyBudget | readonly MoneyBudget[] | null | undefined,
): string | null {
  if (budget === undefined || budget === null) return null
  return JSON.stringify(Array.isArray(budget) ? budget : [budget])
}
