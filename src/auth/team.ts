import type { MaybePromise } from '../internal/maybe-promise'
import type { KeyLimits, McpGrant, MoneyBudget } from './key-store'

export type { PerUserLimits } from './key-store'

/**
 * A team of API keys (`teams[]` in the config; a row of the teams table in PostgreSQL). Its limits
 * have the shapes a key's have, and every request of a key in the team must fit both, checked and
 * charged in one atomic step. The names follow the meter's (`MeteredSubject`): `quotaTokens` is the
 * config's `quota.tokens`, `budgets` its `budget` as a list.
 */
export type Team = {
  /** Stable identifier, carried by usage records (`UsageRecord.team`), events and telemetry. */
  id: string
  /** A human name, shown by the console and the CLI. */
  name?: string | undefined
  /**
   * The group ids the team's keys may use; `undefined` means every group. A key of the team may use
   * only the groups both it and its team allow.
   */
  groups?: readonly string[] | undefined
  /** The team's lifetime token allowance across its keys; `undefined` means unlimited. */
  quotaTokens?: number | undefined
  /** Window, concurrency and calendar limits shared by the team's keys; absent: none. */
  limits?: KeyLimits | undefined
  /** Money budgets shared by the team's keys; absent or empty: none. */
  budgets?: readonly MoneyBudget[] | undefined
  /**
   * The MCP servers and tools the team's keys may use: a key of the team must be allowed by both
   * its own grant (when it has one) and the team's.
   */
  mcp?: McpGrant | undefined
}

/** The organisation above every team and key (`organisation.budget` in the config). */
export type Organisation = {
  /** Money budgets of the whole gateway's traffic; absent or empty: none. */
  budgets?: readonly MoneyBudget[] | undefined
}

/**
 * Looks up teams by id. The config's teams are a memory store (`createMemoryTeamStore`); a
 * database keeps its own. A key whose team a store does not know is refused (a 403 that names the
 * team), never served without its team's limits.
 */
export interface TeamStore {
  /** The team with this id, or `undefined` when there is none. */
  lookup(id: string): MaybePromise<Team | undefined>
}

/**
 * A team store over a fixed list of teams, such as the config's `teams[]`.
 *
 * @example
 * const teams = createMemoryTeamStore([{ id: 'data', budgets: [{ usd: 500, per: 'month' }] }])
 */
export function createMemoryTeamStore(teams: readonly Team[]): TeamStore {
  const byId = new Map<string, Team>()
  for (const team of teams) byId.set(team.id, team)
  return { lookup: (id) => byId.get(id) }
}

/**
 * The groups a key of a team may use: those both allow. `undefined` on either side means every
 * group, so the other side's list stands.
 */
export function teamGroups(
  keyGroups: readonly string[] | undefined,
  team: Team | undefined,
): readonly string[] | undefined {
  const teamGroups = team?.groups
  if (teamGroups === undefined) return keyGroups
  if (keyGroups === undefined) return teamGroups
  const allowed = new Set(teamGroups)
  return keyGroups.filter((group) => allowed.has(group))
}
