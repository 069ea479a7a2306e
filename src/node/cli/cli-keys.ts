import { parseArgs } from 'node:util'
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
import {
  limitOptions,
  readDay,
  readLimitChanges,
  readNumber,
  type FlagValues,
} from './cli-limit-flags'

export { readDay }

/** Usage of `model-gateway keys`. */
export const keysUsage = `Usage: model-gateway keys <command> [options]

  create                 create a key; its secret is printed once
  list [--all] [--team <id>]   list keys (--all: revoked ones too; --team: that team's only)
  revoke <id>            revoke a key on every instance
  update <id>            change a key's name, groups, quota, limits, budgets, expiry or team
  usage <id>             a key's usage and spend per day and model [--since YYYY-MM-DD] [--until YYYY-MM-DD]

create and update take:
  --name <text>                     --id <id> (create only; default key_<public id>)
  --team <id>                       the key's team (model-gateway teams create, or the config's
                                    teams[] with --config); update: --team none leaves its team
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

const keyOptions = {
  ...databaseOptions,
  ...limitOptions,
  id: { type: 'string' },
  team: { type: 'string' },
  'expires-at': { type: 'string' },
  'price-multiplier': { type: 'string' },
  all: { type: 'boolean', default: false },
} as const

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
  values: FlagValues,
  database: CommandDatabase,
): Promise<number> {
  const json = values.json === true
  const { postgres } = database
  switch (command) {
    case 'create': {
      const input = readChanges(values, 'create', database) as CreateKeyInput
      const { key, stored } = await createKey(postgres, input, { otherTeams: database.teamIds })
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
      const team = typeof values.team === 'string' ? values.team : undefined
      const keys = await listKeys(postgres, { includeRevoked: values.all === true, team })
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
      const updated = await updateKey(postgres, id!, changes, { otherTeams: database.teamIds })
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
  values: FlagValues,
  mode: 'create' | 'update',
  database: CommandDatabase,
): CreateKeyInput | UpdateKeyInput {
  const clearable = mode === 'update'
  const changes = readLimitChanges(values, clearable, database, 'keys')
  if (typeof values.id === 'string') {
    if (mode === 'update')
      throw new UsageError('--id names a new key: keys update <id> takes it as its argument')
    changes.id = values.id
  }
  if (typeof values.team === 'string') {
    changes.team = values.team === 'none' && clearable ? null : values.team
  }
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
