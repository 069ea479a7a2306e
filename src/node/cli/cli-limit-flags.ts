import type { KeyLimits } from '../../auth/key-store'
import { UsageError, type CommandDatabase } from './cli-database'

/** The flags of the limits a key and a team share, by the limit each one sets. */
export const limitFlags = {
  'requests-per-minute': 'requestsPerMinute',
  'input-tokens-per-minute': 'inputTokensPerMinute',
  'output-tokens-per-minute': 'outputTokensPerMinute',
  concurrency: 'concurrency',
  'tokens-per-day': 'tokensPerDay',
  'tokens-per-month': 'tokensPerMonth',
} as const satisfies Record<string, keyof KeyLimits>

/** The `parseArgs` options of the flags keys and teams share. */
export const limitOptions = {
  name: { type: 'string' },
  groups: { type: 'string' },
  'all-groups': { type: 'boolean', default: false },
  'quota-tokens': { type: 'string' },
  budget: { type: 'string' },
  'budget-alert-at': { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  ...Object.fromEntries(Object.keys(limitFlags).map((flag) => [flag, { type: 'string' as const }])),
} as const

/** Parsed flag values, as `parseArgs` hands them. */
export type FlagValues = { [name: string]: string | boolean | undefined }

/**
 * The name, groups, quota, limits and money budgets the flags describe, for a key or a team;
 * `none` clears a number or the budgets on update (`clearable`), `--all-groups` the groups.
 * Groups are checked against the config's when one was read.
 */
export function readLimitChanges(
  values: FlagValues,
  clearable: boolean,
  database: CommandDatabase,
  command: string,
): Record<string, unknown> {
  const changes: Record<string, unknown> = {}
  if (typeof values.name === 'string') changes.name = values.name
  if (values['all-groups'] === true) {
    if (!clearable)
      throw new UsageError(
        `--all-groups is for ${command} update (without --groups, every group is allowed)`,
      )
    changes.groups = null
  } else if (typeof values.groups === 'string') {
    changes.groups = readGroups(values.groups, database, command)
  }
  const quota = readCount(values['quota-tokens'], '--quota-tokens', clearable)
  if (quota !== undefined) changes.quotaTokens = quota
  const limits: Record<string, number | null> = {}
  for (const [flag, name] of Object.entries(limitFlags)) {
    const value = readCount(values[flag], `--${flag}`, clearable)
    if (value !== undefined) limits[name] = value
  }
  if (Object.keys(limits).length > 0) changes.limits = limits
  const budget = readBudget(values.budget, values['budget-alert-at'], clearable)
  if (budget !== undefined) changes.budget = budget
  return changes
}

function readGroups(value: string, database: CommandDatabase, command: string): string[] {
  const groups = value
    .split(',')
    .map((group) => group.trim())
    .filter(Boolean)
  const unknown = groups.filter(
    (group) => database.groupIds !== undefined && !database.groupIds.has(group),
  )
  if (unknown.length > 0)
    throw new UsageError(
      `unknown group ${unknown.map((g) => `"${g}"`).join(', ')} (not in the config)`,
    )
  // Without a config there is nothing to check the names against, and a misspelt group is
  // silent until the key gets 404 for every model: say so (on stderr, so --json stays JSON).
  if (database.groupIds === undefined && groups.length > 0) {
    const whose = command === 'teams' ? "a team's keys" : 'a key'
    console.error(
      `model-gateway: warning: the group names (${groups.map((g) => `"${g}"`).join(', ')}) are not checked without --config; ${whose} whose groups are not in the gateway's config gets 404 for every model. Pass --config <file> to check them.`,
    )
  }
  return groups
}

function readCount(value: unknown, flag: string, clearable: boolean): number | null | undefined {
  if (typeof value !== 'string') return undefined
  if (value === 'none' && clearable) return null
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(
      `${flag} takes a whole number${clearable ? ' or "none"' : ''}, got "${value}"`,
    )
  }
  return Number(value)
}

/** `--budget 10/day,200/month` (and `--budget-alert-at 0.8`) as budgets; `none` clears them. */
function readBudget(
  value: unknown,
  alertAt: unknown,
  clearable: boolean,
): Array<{ usd: number; per: string; alertAt?: number }> | null | undefined {
  if (typeof value !== 'string') {
    if (typeof alertAt === 'string') throw new UsageError('--budget-alert-at goes with --budget')
    return undefined
  }
  if (value === 'none' && clearable) return null
  const share = typeof alertAt === 'string' ? readNumber(alertAt, '--budget-alert-at') : undefined
  return value.split(',').map((part) => {
    const match = /^\s*\$?(\d+(?:\.\d+)?)\s*\/\s*(day|month|lifetime)\s*$/.exec(part)
    if (match === null) {
      throw new UsageError(
        `--budget takes <usd>/<day|month|lifetime>, comma-separated (10/day,200/month), got "${part}"`,
      )
    }
    return {
      usd: Number(match[1]),
      per: match[2]!,
      ...(share === undefined ? {} : { alertAt: share }),
    }
  })
}

export function readNumber(value: string, flag: string): number {
  const number = Number(value)
  if (value.trim() === '' || !Number.isFinite(number)) {
    throw new UsageError(`${flag} takes a number, got "${value}"`)
  }
  return number
}

/** A `--since`/`--until` day, `YYYY-MM-DD` (UTC). */
export function readDay(value: unknown, flag: string): Date | undefined {
  if (typeof value !== 'string') return undefined
  const date = new Date(`${value}T00:00:00Z`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(date.getTime())) {
    throw new UsageError(`${flag} takes a day as YYYY-MM-DD, got "${value}"`)
  }
  return date
}
