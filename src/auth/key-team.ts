import { GatewayError } from '../errors'
import type { MaybePromise } from '../internal/maybe-promise'
import type { KeyRecord } from './key-store'
import { teamGroups, type Team, type TeamStore } from './team'

/** A key with its team: the record's groups narrowed to those both allow. */
export type KeyWithTeam = { key: KeyRecord; team: Team | undefined }

/**
 * Finds a key's team and narrows the key to the groups both allow, so that routing, model lists
 * and `GET /v1/usage` see one list. A key without a team is returned as it is, with no lookup. A
 * key whose team no store knows is refused (403 naming the team), never served without its
 * team's limits: that would be LiteLLM's #17054, a level silently skipped.
 */
export function withKeyTeam(
  key: KeyRecord,
  teams: TeamStore | undefined,
): MaybePromise<KeyWithTeam> {
  const teamId = key.team
  if (teamId === undefined) return { key, team: undefined }
  const found = teams?.lookup(teamId)
  return found instanceof Promise
    ? found.then((team) => narrowed(key, teamId, team))
    : narrowed(key, teamId, found)
}

function narrowed(key: KeyRecord, teamId: string, team: Team | undefined): KeyWithTeam {
  if (team === undefined) {
    throw new GatewayError(
      'permission',
      `This API key belongs to team ${JSON.stringify(teamId)}, which the gateway does not know.`,
    )
  }
  if (team.groups === undefined) return { key, team }
  return { key: { ...key, groups: teamGroups(key.groups, team) }, team }
}
