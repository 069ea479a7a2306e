import { parseArgs } from 'node:util'
import type { KeyLimits } from '../../auth/key-store'
import { createKey, getKey, listKeys, revokeKey, updateKey } from '../../postgres/key-admin'
import type { CreateKeyInput, UpdateKeyInput } from '../../postgres/key-input'
import { keyUsage } from '../../postgres/key-usage'
import type { StoredKey } from '../../postgres/stored-key'
import {
  databaseOptions,
  databaseUsage,
  openCommandDatabase,
  UsageError,
  type CommandDatabase,
} from './cli-database'
import { keyJson, keysTable, usageText } from './cli-keys-format'

/** Usage of `model-gateway keys`. */
export const keysUsage = `Usage: model-gateway keys <command> [options]

  create                 create a key; its secret is printed once
  list [--all]           list keys (--all: revoked ones too)
  revoke <id>            revoke a key on every instance
  update <id>            change a key's name, groups, quota, limits or expiry
  usage <id>             a key's usage and spend per day and model [--since YYYY-MM-DD] [--until YYYY-MM-DD]

create and update take:
  --name <text>                     --id <id> (create only; default key_<public id>)
  --groups a,b                      the groups the key may use (update: --all-groups for every group)
  --quota-tokens <n>                lifetime token allowance
  --requests-per-minute <n>         --input-tokens-per-minute <n>   --output-tokens-per-minute <n>
  --concurrency <n>                 --tokens-per-day <n>            --tokens-per-month <n>
  --budget <usd>/<day|month|lifetime>[,…]   money budgets, e.g. --budget 10/day,200/month
  --budget-alert-at <share>         call onBudgetAlert at this share of each budget (0.8 = 80 %)
  --price-multiplier <x>            × the list price of every request (a resale margin)
  --expires-at <ISO date-time>
  update only: "none" clears a number, a budget or the multiplier; --expires-at never clears
  the expiry

${databaseUsage}`

const limitFlags = {
  'requests-per-minute': 'requestsPerMinute',
  'input-tokens-per-minute': 'inputTokensPerMinute',
  'output-tokens-per-minute': 'outputTokensPerMinute',
  concurrency: 'concurrency',
  'tokens-per-day': 'tokensPerDay',
  'tokens-per-month': 'tokensPerMonth',
} as const satisfies Record<string, keyof KeyLimits>

const keyOptions = {
  ...databaseOptions,
  id: { type: 'string' },
  name: { type: 'string' },
  groups: { type: 'string' },
  'all-groups': { type: 'boolean', default: false },
  'quota-tokens': { type: 'string' },
  'expires-at': { type: 'string' },
  budget: { type: 'string' },
  'budget-alert-at': { type: 'string' },
  'price-multiplier': { type: 'string' },
  all: { type: 'boolean', default: false },
  since: { type: 'string' },
  until: { type: 'string' },
  ...Object.fromEntries(Object.keys(limitFlags).map((flag) => [flag, { type: 'string' as const }])),
} as const

type KeyValues = { [name: string]: string | boolean | undefined }

/** `model-gateway keys …`: key administration against the database. */
export async function runKeys(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: keyOptions,
    allowPositionals: true,
    strict: true,
  })
  const [command, id, ...extra] = positionals
  if (values.help || command === undefined) {
    console.log(keysUsage)
    return command === undefined && !values.help ? 2 : 0
  }
  const commands = ['create', 'list', 'revoke', 'update', 'usage']
  if (!commands.includes(command)) throw new UsageError(`unknown command "keys ${command}"`)
  const needsId = command === 'revoke' || command === 'update' || command === 'usage'
  if (needsId && id === undefined) throw new UsageError(`keys ${command} needs a key id`)
  if (extra.length > 0 || (!needsId && id !== undefined)) {
    throw new UsageError(`unexpected argument "${[id, ...extra].filter(Boolean).join(' ')}"`)
  }
  const database = await openCommandDatabase(values)
  try {
    return await runKeyCommand(command, id, values, database)
  } finally {
    await database.close()
  }
}

async function runKeyCommand(
  command: string,
  id: string | undefined,
  values: KeyValues,
  database: CommandDatabase,
): Promise<number> {
  const json = values.json === true
  const { postgres } = database
  switch (command) {
    case 'create': {
      const input = readChanges(values, 'create', database) as CreateKeyInput
      const { key, stored } = await createKey(postgres, input)
      if (json) console.log(JSON.stringify({ key, ...keyJson(stored) }))
      else {
        console.log(
          `Created key ${stored.id}${stored.name ? ` (${stored.name})` : ''}:\n\n  ${key}\n`,
        )
        console.log(
          'This is the only time the key is shown: store it now. The database keeps only its SHA-256.',
        )
      }
      return 0
    }
    case 'list': {
      const keys = await listKeys(postgres, { includeRevoked: values.all === true })
      if (json) console.log(JSON.stringify(keys.map(keyJson)))
      else if (keys.length === 0) console.log('No keys.')
      else console.log(keysTable(keys))
      return 0
    }
    case 'revoke': {
      const revoked = await revokeKey(postgres, id!)
      return answer(revoked, id!, json, (key) => `Revoked ${key.id} (${key.display}).`)
    }
    case 'update': {
      const changes = readChanges(values, 'update', database) as UpdateKeyInput
      if (Object.keys(changes).length === 0) throw new UsageError('keys update needs a change')
      const updated = await updateKey(postgres, id!, changes)
      return answer(updated, id!, json, (key) => `Updated ${key.id}:\n${keysTable([key])}`)
    }
    case 'usage': {
      const key = await getKey(postgres, id!)
      if (key === undefined) return notFound(id!, json)
      const report = await keyUsage(postgres, id!, {
        since: readDay(values.since, '--since'),
        until: readDay(values.until, '--until'),
      })
      if (json) console.log(JSON.stringify({ ...report, quotaTokens: key.quotaTokens ?? null }))
      else console.log(usageText(key, report))
      return 0
    }
  }
  throw new UsageError(`unknown command "keys ${command}"`)
}

function answer(
  key: StoredKey | undefined,
  id: string,
  json: boolean,
  text: (key: StoredKey) => string,
): number {
  if (key === undefined) return notFound(id, json)
  console.log(json ? JSON.stringify(keyJson(key)) : text(key))
  return 0
}

function notFound(id: string, json: boolean): number {
  if (json) console.log(JSON.stringify({ error: `no key with id "${id}"` }))
  else console.error(`model-gateway: no key with id "${id}"`)
  return 1
}

/** The create or update input the flags describe; `none`/`never` clear a field on update. */
function readChanges(
  values: KeyValues,
  mode: 'create' | 'update',
  database: CommandDatabase,
): CreateKeyInput | UpdateKeyInput {
  const changes: Record<string, unknown> = {}
  const clearable = mode === 'update'
  if (typeof values.id === 'string') {
    if (mode === 'update')
      throw new UsageError('--id names a new key: keys update <id> takes it as its argument')
    changes.id = values.id
  }
  if (typeof values.name === 'string') changes.name = values.name
  if (values['all-groups'] === true) {
    if (!clearable)
      throw new UsageError(
        '--all-groups is for keys update (a new key without --groups may use every group)',
      )
    changes.groups = null
  } else if (typeof values.groups === 'string') {
    const groups = values.groups
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
      console.error(
        `model-gateway: warning: the group names (${groups.map((g) => `"${g}"`).join(', ')}) are not checked without --config; a key whose groups are not in the gateway's config gets 404 for every model. Pass --config <file> to check them.`,
      )
    }
    changes.groups = groups
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
  const multiplier = values['price-multiplier']
  if (typeof multiplier === 'string') {
    changes.priceMultiplier =
      multiplier === 'none' && clearable ? null : readNumber(multiplier, '--price-multiplier')
  }
  const expires = values['expires-at']
  if (typeof expires === 'string') {
    if (expires === 'never' && clearable) changes.expiresAt = null
    else {
      const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(expires) ? `${expires}T00:00:00Z` : expires)
      if (Number.isNaN(date.getTime()))
        throw new UsageError(`--expires-at takes an ISO date-time, got "${expires}"`)
      changes.expiresAt = date
    }
  }
  return changes
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

function readNumber(value: string, flag: string): number {
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
