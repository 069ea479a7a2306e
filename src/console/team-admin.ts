import type { Team, TeamStore } from '../auth/team'
import type { PostgresOptions } from '../postgres/client'
import { KeyAdminError, parseKeyInput } from '../postgres/key-input'
import { toTeam, type StoredTeam } from '../postgres/stored-team'
import { createTeam, getTeam, listTeams, updateTeam } from '../postgres/team-admin'
import {
  createTeamInputSchema,
  updateTeamInputSchema,
  type CreateTeamInput,
  type UpdateTeamInput,
} from '../postgres/team-input'

/**
 * Where the console lists, creates and edits teams. Inputs are validated as `model-gateway teams`
 * validates them; bad input throws `KeyAdminError` with a message fit to show. Teams of the config
 * (`teams[]`) are read-only and not listed here: the console finds them through the keys that name
 * them.
 */
export interface TeamAdmin {
  /** `postgres` teams reach every instance; `memory` teams live in this process. */
  readonly kind: 'postgres' | 'memory'
  list(): Promise<StoredTeam[]>
  get(id: string): Promise<StoredTeam | undefined>
  create(input: CreateTeamInput): Promise<StoredTeam>
  update(id: string, changes: UpdateTeamInput): Promise<StoredTeam | undefined>
}

/**
 * The team admin over Postgres: the functions `model-gateway teams` runs.
 *
 * @example
 * createConsole(gateway, { teams: createPostgresTeamAdmin({ client: pool }) })
 */
export function createPostgresTeamAdmin(options: PostgresOptions): TeamAdmin {
  return {
    kind: 'postgres',
    list: () => listTeams(options),
    get: (id) => getTeam(options, id),
    create: (input) => createTeam(options, input),
    update: (id, changes) => updateTeam(options, id, changes),
  }
}

/** A team admin whose teams live in this process, and the `TeamStore` the gateway asks. */
export type MemoryTeamAdmin = TeamAdmin & TeamStore

/**
 * Teams created in the console and kept in this process's memory: pass it to `createGateway` as
 * its `teamStore` and to `createConsole` as `teams`, beside `createMemoryKeyAdmin`. A restart
 * forgets them; `state.postgres` keeps teams for good.
 *
 * @example
 * const teams = createMemoryTeamAdmin()
 * const gateway = createGateway({ ...config, keyStore: keys, teamStore: teams })
 * const console = createConsole(gateway, { keys, teams })
 */
export function createMemoryTeamAdmin(options: { now?: () => number } = {}): MemoryTeamAdmin {
  const now = options.now ?? Date.now
  const byId = new Map<string, StoredTeam>()
  const copy = (team: StoredTeam): StoredTeam => ({
    ...team,
    groups: team.groups === undefined ? undefined : [...team.groups],
    limits: { ...team.limits },
    budget: team.budget.map((budget) => ({ ...budget })),
  })
  return {
    kind: 'memory',
    lookup(id): Team | undefined {
      const team = byId.get(id)
      return team === undefined ? undefined : toTeam(copy(team))
    },
    list: async () => [...byId.values()].sort((a, b) => a.id.localeCompare(b.id)).map(copy),
    get: async (id) => {
      const team = byId.get(id)
      return team === undefined ? undefined : copy(team)
    },
    async create(input) {
      const valid = parseKeyInput(createTeamInputSchema, input)
      if (byId.has(valid.id))
        throw new KeyAdminError(`A team with id "${valid.id}" exists already.`)
      const at = new Date(now())
      const team: StoredTeam = {
        id: valid.id,
        name: valid.name,
        groups: valid.groups,
        quotaTokens: valid.quotaTokens,
        limits: { ...valid.limits },
        budget: budgetList(valid.budget),
        createdAt: at,
        updatedAt: at,
      }
      byId.set(team.id, team)
      return copy(team)
    },
    async update(id, changes) {
      const team = byId.get(id)
      if (team === undefined) return undefined
      const valid = parseKeyInput(updateTeamInputSchema, changes)
      if (valid.name !== undefined) team.name = valid.name ?? undefined
      if (valid.groups !== undefined) team.groups = valid.groups ?? undefined
      if (valid.quotaTokens !== undefined) team.quotaTokens = valid.quotaTokens ?? undefined
      if (valid.limits !== undefined) {
        for (const [name, value] of Object.entries(valid.limits)) {
          const limit = name as keyof StoredTeam['limits']
          if (value === null) delete team.limits[limit]
          else if (value !== undefined) team.limits[limit] = value
        }
      }
      if (valid.budget !== undefined) team.budget = budgetList(valid.budget)
      team.updatedAt = new Date(now())
      return copy(team)
    },
  }
}

function budgetList(
  budget: StoredTeam['budget'][number] | readonly StoredTeam['budget'][number][] | null | undefined,
): StoredTeam['budget'] {
  if (budget === undefined || budget === null) return []
  return (Array.isArray(budget) ? budget : [budget]).map((item) => ({ ...item }))
}
