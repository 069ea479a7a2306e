import type { PostgresOptions } from './client'
import { KeyAdminError } from './key-input'
import { resolveTables } from './tables'

/** Teams a key may name besides the teams table's: those the config defines (`teams[]`). */
export type TeamCheck = {
  /** Ids of teams defined elsewhere (the config's `teams[]`), accepted as they are. */
  otherTeams?: Iterable<string> | undefined
}

/**
 * Refuses a team a key cannot belong to: one neither in the teams table nor in `otherTeams`. A
 * key of an unknown team would be refused on every request (its team's limits cannot be
 * checked), so it is refused here, naming the team, before it is stored.
 *
 * @throws KeyAdminError naming the team
 */
export async function checkTeam(
  options: PostgresOptions,
  team: string,
  check: TeamCheck,
): Promise<void> {
  for (const other of check.otherTeams ?? []) if (other === team) return
  const tables = resolveTables(options)
  const { rows } = await options.client.query(
    `SELECT 1 AS found FROM ${tables.teams} WHERE id = $1`,
    [team],
  )
  if (rows.length === 0) {
    throw new KeyAdminError(
      `No team "${team}": create it first (model-gateway teams create ${team}), or name a team of the config.`,
    )
  }
}
