import type { KeyLimits, MoneyBudget } from '../auth/key-store'
import type { Team } from '../auth/team'
import { epochMs, readBudget, readDate, readJson, readLimits, readNumber } from './stored-key'

/** A team of the teams table, as the admin functions hand it out. */
export type StoredTeam = {
  id: string
  name: string | undefined
  /** The groups the team's keys may use; `undefined` means every group. */
  groups: string[] | undefined
  /** The team's lifetime token allowance; `undefined` means unlimited. */
  quotaTokens: number | undefined
  limits: KeyLimits
  /** Money budgets, one per period; empty when the team has none. */
  budget: MoneyBudget[]
  createdAt: Date
  updatedAt: Date
}

/** The select list every team query uses (values as text, as for keys). */
export const storedTeamColumns = `id, name, groups::text AS groups,
  quota_tokens::text AS quota_tokens, limits::text AS limits, budget::text AS budget,
  ${epochMs('created_at')} AS created_ms, ${epochMs('updated_at')} AS updated_ms`

/** Reads one row selected with `storedTeamColumns`. */
export function readStoredTeam(row: Record<string, unknown>): StoredTeam {
  const groups = readJson(row.groups)
  return {
    id: String(row.id),
    name: row.name === null || row.name === undefined ? undefined : String(row.name),
    groups: Array.isArray(groups) ? groups.map(String) : undefined,
    quotaTokens: readNumber(row.quota_tokens),
    limits: readLimits(readJson(row.limits)),
    budget: readBudget(readJson(row.budget)),
    createdAt: readDate(row.created_ms) ?? new Date(0),
    updatedAt: readDate(row.updated_ms) ?? new Date(0),
  }
}

/** The gateway's view of a stored team (what the meter holds the team's keys to). */
export function toTeam(team: StoredTeam): Team {
  return {
    id: team.id,
    name: team.name ?? team.id,
    groups: team.groups,
    quotaTokens: team.quotaTokens,
    limits: Object.keys(team.limits).length === 0 ? undefined : team.limits,
    budgets: team.budget.length === 0 ? undefined : team.budget,
  }
}
