import type { Team, TeamStore } from '../auth/team'
import { GatewayError } from '../errors'
import type { PostgresOptions } from './client'
import { createLoudLog } from './loud-log'
import { readStoredTeam, storedTeamColumns, toTeam } from './stored-team'
import { resolveTables } from './tables'

/** Options of `createPostgresTeamStore`. */
export type PostgresTeamStoreOptions = PostgresOptions & {
  /** How long a team (or that an id has none) is cached (default 5000 ms; 0 turns it off). */
  cacheTtlMs?: number | undefined
  /** Teams cached at once at most (default 10000). */
  maxCacheEntries?: number | undefined
  now?: (() => number) | undefined
}

type Entry = { team: Team | undefined; expiresAt: number }

/**
 * The teams of the teams table as a `TeamStore`, for the gateway to hold database keys' teams to
 * their limits. A team is read once and cached for `cacheTtlMs` (found or not), and concurrent
 * lookups of one id share one query: a change made with `updateTeam` or `model-gateway teams
 * update` reaches every instance within that time. A database failure answers 503 (`overloaded`)
 * with `retry-after: 1`: a key's request is never served without its team's limits.
 *
 * @example
 * const teams = createPostgresTeamStore({ client: pool })
 * const data = await teams.lookup('data')
 */
export function createPostgresTeamStore(options: PostgresTeamStoreOptions): TeamStore {
  const tables = resolveTables(options)
  const now = options.now ?? Date.now
  const ttlMs = options.cacheTtlMs ?? 5000
  const maxEntries = options.maxCacheEntries ?? 10_000
  const cache = new Map<string, Entry>()
  const loading = new Map<string, Promise<Team | undefined>>()
  const logFailure = createLoudLog()

  const load = (id: string): Promise<Team | undefined> => {
    const pending = loading.get(id)
    if (pending !== undefined) return pending
    const query = options.client
      .query(`SELECT ${storedTeamColumns} FROM ${tables.teams} WHERE id = $1`, [id])
      .then(
        ({ rows }) => {
          loading.delete(id)
          const team = rows[0] === undefined ? undefined : toTeam(readStoredTeam(rows[0]))
          if (ttlMs > 0) {
            cache.delete(id)
            cache.set(id, { team, expiresAt: now() + ttlMs })
            // Maps iterate in insertion order: the first entry is the oldest.
            while (cache.size > maxEntries) cache.delete(cache.keys().next().value!)
          }
          return team
        },
        (error: unknown) => {
          loading.delete(id)
          logFailure('team lookup in Postgres failed', error)
          throw new GatewayError(
            'overloaded',
            'The team store is unavailable; try again shortly.',
            {
              status: 503,
              cause: error,
              headers: { 'retry-after': '1' },
            },
          )
        },
      )
    loading.set(id, query)
    return query
  }

  return {
    lookup(id) {
      const entry = cache.get(id)
      if (entry !== undefined && entry.expiresAt > now()) return entry.team
      return load(id)
    },
  }
}
