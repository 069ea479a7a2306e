import { maskKey } from '../../auth/mask-key'
import { expandEnv } from '../../config/expand-env'
import type { StateConfig } from '../../config/schema'
import { describeFailurePolicy, resolveFailurePolicy } from '../../redis/local-fallback'
import { redactUrl } from './redact-url'
import { describeTarget, describeTopology } from './redis-topology'
import type { ConnectedState } from './state'

/** What the CLI knows once the gateway is built, before it listens. */
export type StartFacts = {
  version: string
  configPath: string
  /** The config file as read (`${NAME}` not yet expanded). */
  config: unknown
  env: Readonly<Record<string, unknown>>
  stateConfig: StateConfig | undefined
  state: ConnectedState
}

type ModelEntry = string | { name?: unknown; upstreamModel?: unknown; fallbacks?: unknown }
type GroupEntry = { id?: unknown; protocol?: unknown; models?: unknown; upstreams?: unknown }
type KeyEntry = { key?: unknown; keyHash?: unknown; id?: unknown; name?: unknown }

/** Models listed per group before the rest is counted. */
const modelsShown = 12
/** Config keys listed before the rest is counted. */
const keysShown = 5

/**
 * What the CLI prints when it starts: the version, each group with its upstreams and models, the
 * config's keys (masked), and the shared state; and, apart, a warning for each configured store
 * that does not answer. Nothing secret is printed: keys as `sk-…abcd`, URLs without passwords.
 */
export function startSummary(facts: StartFacts): { lines: string[]; warnings: string[] } {
  const config = (facts.config ?? {}) as { groups?: unknown; keys?: unknown; console?: unknown }
  const lines = [
    `model-gateway ${facts.version} (Node ${process.version}), config ${facts.configPath}`,
  ]
  const groups = expandEnv(config.groups, facts.env, [])
  for (const group of Array.isArray(groups) ? (groups as GroupEntry[]) : []) {
    lines.push(
      `  group ${String(group.id)} (${String(group.protocol)} → ${upstreamsOf(group)}): ${modelsOf(group)}`,
    )
  }
  lines.push(`  keys: ${keysOf(config.keys, facts.stateConfig?.postgres !== undefined)}`)
  if (config.console !== undefined) lines.push(`  console: ${consoleOf(config.console)}`)
  const { stateConfig: state, state: connected } = facts
  const warnings: string[] = []
  if (state?.redis === undefined && state?.postgres === undefined) {
    lines.push(
      '  state: this process only (no "state"): usage and limits are not shared, a restart forgets usage',
    )
    return { lines, warnings }
  }
  const parts: string[] = []
  if (state.redis !== undefined) {
    const url = describeTarget(state.redis)
    const topology = connected.redisTopology?.()
    const shape =
      connected.redisConnected === false || topology === undefined
        ? ''
        : ` (${describeTopology(topology)})`
    parts.push(
      `Redis ${url} ${connected.redisConnected === false ? 'NOT ANSWERING' : 'answering'}${shape}`,
    )
    if (connected.redisConnected === false) {
      warnings.push(
        `WARNING: Redis at ${url} does not answer; serving anyway and retrying. ${describeFailurePolicy(resolveFailurePolicy(state.onFailure))}`,
      )
    }
  }
  if (state.postgres !== undefined) {
    const schema = state.schema === undefined ? '' : `, schema ${state.schema}`
    parts.push(
      `PostgreSQL ${redactUrl(state.postgres)} at schema version ${connected.schemaVersion ?? '?'}${schema}`,
    )
  }
  parts.push(`prefix ${state.prefix ?? 'mg'}`)
  lines.push(`  state: ${parts.join('; ')}`)
  return { lines, warnings }
}

function upstreamsOf(group: GroupEntry): string {
  const upstreams = Array.isArray(group.upstreams) ? (group.upstreams as unknown[]) : []
  return upstreams
    .map((upstream) => {
      const entry = upstream as { provider?: unknown; baseUrl?: unknown }
      if (typeof entry.provider === 'string') return entry.provider
      if (typeof entry.baseUrl !== 'string') return 'custom'
      try {
        // The host only: a base URL may carry credentials or a token in its path or query.
        return new URL(entry.baseUrl).host
      } catch {
        return '(bad URL)'
      }
    })
    .join(', ')
}

function modelsOf(group: GroupEntry): string {
  const models = Array.isArray(group.models) ? (group.models as ModelEntry[]) : []
  const names = models.slice(0, modelsShown).map((model) => {
    if (typeof model === 'string') return model
    const name = String(model.name)
    const upstream =
      typeof model.upstreamModel === 'string' && model.upstreamModel !== name
        ? ` → ${model.upstreamModel}`
        : ''
    const fallbacks =
      Array.isArray(model.fallbacks) && model.fallbacks.length > 0
        ? ` (fallbacks ${model.fallbacks.join(', ')})`
        : ''
    return `${name}${upstream}${fallbacks}`
  })
  if (models.length > modelsShown) names.push(`+${models.length - modelsShown} more`)
  return names.join(', ')
}

function keysOf(keys: unknown, database: boolean): string {
  const entries = Array.isArray(keys) ? (keys as KeyEntry[]) : []
  const shown = entries.slice(0, keysShown).map((entry) => {
    const secret = typeof entry.key === 'string' ? maskKey(entry.key) : 'sha256'
    const label = typeof entry.name === 'string' ? entry.name : entry.id
    return typeof label === 'string' ? `${label} ${secret}` : String(secret)
  })
  if (entries.length > keysShown) shown.push(`+${entries.length - keysShown} more`)
  const fromConfig = `${entries.length} in the config${shown.length > 0 ? ` (${shown.join(', ')})` : ''}`
  return database ? `${fromConfig}, and the database's` : fromConfig
}

function consoleOf(section: unknown): string {
  const { path, adminTokens, viewerTokens, keyLogin } = section as {
    path?: unknown
    adminTokens?: unknown
    viewerTokens?: unknown
    keyLogin?: unknown
  }
  const count = (tokens: unknown, what: string) => {
    const n = Array.isArray(tokens) ? tokens.length : 0
    return `${n} ${what} token${n === 1 ? '' : 's'}`
  }
  return `${typeof path === 'string' ? path : '/console'} (${count(adminTokens, 'admin')}, ${count(viewerTokens, 'viewer')}, key holders ${keyLogin === true ? 'may' : 'may not'} sign in)`
}
