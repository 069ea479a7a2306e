import * as z from 'zod/mini'
import { checkAlways } from '../internal/check-always'
import { checkUpstreamKinds } from './kind-checks'

type Path = (string | number)[]
type Report = (path: Path, message: string) => void

/**
 * The config's checks that span fields: which parts are given, duplicate ids, and the names one
 * part gives of another (fallbacks, a key's groups). They run even when fields have problems of
 * their own (`when`), so that one pass reports every problem: a bad fallback no longer hides a
 * bad upstream, nor the reverse. The config may therefore be malformed where another issue was
 * reported, so it is read as `unknown`, and a part of the wrong type is left to its own issue.
 */
export function crossFieldChecks() {
  return z.superRefine(
    (config: unknown, context) => {
      const parts = record(config) // an array is reported as "expected object"
      if (parts === undefined) return
      checkConfigParts(parts, (path, message) =>
        context.addIssue({ code: 'custom', path, message }),
      )
    },
    { when: checkAlways },
  )
}

function checkConfigParts(config: Record<string, unknown>, issue: Report): void {
  // A gateway of tool servers alone (`mcp`) needs no model group.
  const noGroups = config.groups === undefined && config.groupRegistry === undefined
  if (
    (config.groups !== undefined && config.groupRegistry !== undefined) ||
    (noGroups && config.mcp === undefined)
  ) {
    issue(['groups'], 'give exactly one of "groups" or "groupRegistry"')
  }
  if (config.keys === undefined && config.keyStore === undefined) {
    issue(['keys'], 'give "keys", a "keyStore", or both')
  }
  const state = record(config.state)
  if (
    state?.postgres !== undefined &&
    (config.keyStore === undefined || config.usageLedger === undefined)
  ) {
    issue(
      ['state', 'postgres'],
      'the core cannot open database connections: use createGatewayWithState() from "model-gateway/node", or pass keyStore and usageLedger from "model-gateway/postgres"',
    )
  }
  if (state?.redis !== undefined && config.usageMeter === undefined) {
    issue(
      ['state', 'redis'],
      'the core opens no connections: use createGatewayWithState() from "model-gateway/node" (the CLI does), or pass usageMeter: createRedisUsageMeter({ client }) from "model-gateway/redis"',
    )
  }
  const groups = Array.isArray(config.groups) ? config.groups.map(record) : undefined
  const groupIds = checkGroups(groups ?? [], issue)
  checkFallbacks(groups ?? [], issue)
  checkKeys(list(config.keys), groups === undefined ? undefined : groupIds, issue)
  checkTeams(config, groups === undefined ? undefined : groupIds, issue)
  checkUpstreamKinds(config, issue)
}

/** Duplicate group ids and models, and upstream settings that contradict their group. */
function checkGroups(groups: (Record<string, unknown> | undefined)[], issue: Report): Set<string> {
  const groupIds = new Set<string>()
  groups.forEach((entry, index) => {
    if (entry === undefined) return
    if (typeof entry.id === 'string') {
      if (groupIds.has(entry.id)) issue(['groups', index, 'id'], `duplicate group id "${entry.id}"`)
      groupIds.add(entry.id)
    }
    list(entry.upstreams).forEach((item, upstreamIndex) => {
      const upstream = record(item)
      if (upstream === undefined) return
      const path = ['groups', index, 'upstreams', upstreamIndex]
      if (upstream.apiKeys !== undefined && upstream.apiKey !== undefined)
        issue([...path, 'apiKeys'], 'give one of "apiKey" or "apiKeys"')
      if (entry.protocol !== 'openai' && upstream.responses === true)
        issue(
          [...path, 'responses'],
          'only an upstream of an "openai" group can serve the Responses API',
        )
    })
    const names = new Set<string>()
    list(entry.models).forEach((model, modelIndex) => {
      const name = modelName(model)
      if (name === undefined) return
      if (names.has(name))
        issue(['groups', index, 'models', modelIndex], `duplicate model "${name}"`)
      names.add(name)
    })
  })
  return groupIds
}

/** Failover: each fallback names a model of a known group. */
function checkFallbacks(groups: (Record<string, unknown> | undefined)[], issue: Report): void {
  groups.forEach((entry, index) => {
    list(entry?.models).forEach((model, modelIndex) => {
      list(record(model)?.fallbacks).forEach((name, fallbackIndex) => {
        // A name that is not `<group>/<model>` has its own issue already.
        if (typeof name !== 'string' || !/^[^/]+\/.+$/.test(name)) return
        const slash = name.indexOf('/')
        const groupId = name.slice(0, slash)
        const wanted = name.slice(slash + 1)
        const target = groups.find((other) => other?.id === groupId)
        if (
          target !== undefined &&
          list(target.models).some((other) => modelName(other) === wanted)
        )
          return
        issue(
          ['groups', index, 'models', modelIndex, 'fallbacks', fallbackIndex],
          target === undefined
            ? `unknown group "${groupId}"`
            : `group "${groupId}" serves no model "${wanted}"`,
        )
      })
    })
  })
}

/** Duplicate keys and key ids, and groups a key names that the config does not have. */
function checkKeys(keys: unknown[], groupIds: Set<string> | undefined, issue: Report): void {
  const secrets = new Set<string>()
  const ids = new Set<string>()
  keys.forEach((item, index) => {
    const entry = record(item)
    if (entry === undefined) return
    const secret =
      typeof entry.key === 'string'
        ? entry.key
        : typeof entry.keyHash === 'string'
          ? entry.keyHash.toLowerCase()
          : undefined
    if (secret !== undefined && secrets.has(secret)) issue(['keys', index], 'duplicate key')
    if (secret !== undefined) secrets.add(secret)
    if (typeof entry.id === 'string') {
      if (ids.has(entry.id)) issue(['keys', index, 'id'], `duplicate key id "${entry.id}"`)
      ids.add(entry.id)
    }
    list(entry.groups).forEach((name, groupIndex) => {
      if (groupIds !== undefined && typeof name === 'string' && !groupIds.has(name))
        issue(['keys', index, 'groups', groupIndex], `unknown group "${name}"`)
    })
  })
}

/**
 * Duplicate team ids, groups a team names that the config does not have, keys of a team the config
 * does not list (unless a `teamStore` may know it), and a key's groups its team does not allow.
 */
function checkTeams(
  config: Record<string, unknown>,
  groupIds: Set<string> | undefined,
  issue: Report,
): void {
  const teams = new Map<string, Record<string, unknown>>()
  list(config.teams).forEach((item, index) => {
    const team = record(item)
    if (team === undefined || typeof team.id !== 'string') return
    // The first of duplicates stands: its keys are checked against it.
    if (teams.has(team.id)) issue(['teams', index, 'id'], `duplicate team id "${team.id}"`)
    else teams.set(team.id, team)
    list(team.groups).forEach((name, groupIndex) => {
      if (groupIds !== undefined && typeof name === 'string' && !groupIds.has(name))
        issue(['teams', index, 'groups', groupIndex], `unknown group "${name}"`)
    })
  })
  list(config.keys).forEach((item, index) => {
    const entry = record(item)
    const teamId = entry?.team
    if (typeof teamId !== 'string') return
    const team = teams.get(teamId)
    if (team === undefined) {
      if (config.teamStore === undefined) {
        issue(['keys', index, 'team'], `unknown team "${teamId}": add it to "teams"`)
      }
      return
    }
    if (!Array.isArray(team.groups)) return
    const allowed = new Set(team.groups)
    list(entry!.groups).forEach((name, groupIndex) => {
      if (typeof name === 'string' && !allowed.has(name))
        issue(
          ['keys', index, 'groups', groupIndex],
          `group "${name}" is not one of team "${teamId}"'s groups`,
        )
    })
  })
}

/** A model entry's call name: the string, or its `name`. */
function modelName(model: unknown): string | undefined {
  const name = typeof model === 'string' ? model : record(model)?.name
  return typeof name === 'string' ? name : undefined
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}
