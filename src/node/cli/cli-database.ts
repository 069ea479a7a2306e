import { resolve } from 'node:path'
import type { PostgresOptions } from '../../postgres/client'
import { openPostgresPool } from './postgres-pool'
import { readConfigFile } from './read-config-file'
import { readStateConfig } from './state'

/** Flags every database command takes. */
export const databaseOptions = {
  config: { type: 'string', short: 'c' },
  database: { type: 'string' },
  prefix: { type: 'string' },
  schema: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const

/** The usage lines of the flags above. */
export const databaseUsage = `  --config <file>   read the database from the config's "state" ("postgres", "prefix", "schema")
  --database <url>  the database URL (overrides the config's; default: $DATABASE_URL)
  --prefix <name>   table prefix (default: the config's, else "mg")
  --schema <name>   Postgres schema (default: the config's, else the search_path)
  --json            print JSON for scripts instead of text for people`

/** A connected database for a command, and the config's group and team ids when a config was read. */
export type CommandDatabase = {
  postgres: PostgresOptions
  groupIds: ReadonlySet<string> | undefined
  /** The ids of the config's `teams[]` (keys may name them as well as the teams table's). */
  teamIds: ReadonlySet<string> | undefined
  close(): Promise<void>
}

/** A bad command line: printed with the command's usage, exit status 2. */
export class UsageError extends Error {}

/**
 * Opens the database a command names: `--database`, else the config's `state.postgres`, else the
 * `DATABASE_URL` environment variable. Of the config, only `state.postgres`, `prefix` and
 * `schema` are expanded: an unset upstream key variable, or `REDIS_URL` on a machine that only
 * administers keys, does not stop an operator from managing keys.
 */
export async function openCommandDatabase(
  values: {
    config?: string | undefined
    database?: string | undefined
    prefix?: string | undefined
    schema?: string | undefined
  },
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<CommandDatabase> {
  let config: {
    state?: unknown
    groups?: Array<{ id?: unknown }>
    teams?: Array<{ id?: unknown }>
  } = {}
  if (values.config !== undefined) {
    config = (await readConfigFile(resolve(values.config))) as typeof config
  }
  const state = readStateConfig(databaseState(config.state), env)
  const url = values.database ?? state?.postgres ?? nonEmpty(env.DATABASE_URL)
  if (url === undefined) {
    throw new UsageError(
      'name the database: --database <url>, a config with state.postgres (--config), or DATABASE_URL',
    )
  }
  const pool = await openPostgresPool(url)
  const groupIds = Array.isArray(config.groups)
    ? new Set(config.groups.map((group) => String(group.id)))
    : undefined
  const teamIds = Array.isArray(config.teams)
    ? new Set(config.teams.map((team) => String(team.id)))
    : undefined
  return {
    postgres: {
      client: pool,
      prefix: values.prefix ?? state?.prefix,
      schema: values.schema ?? state?.schema,
    },
    groupIds,
    teamIds,
    close: () => pool.end(),
  }
}

/** The members of a config's `state` a database command uses; the rest is neither read nor expanded. */
function databaseState(state: unknown): unknown {
  if (typeof state !== 'object' || state === null || Array.isArray(state)) return state
  const { postgres, prefix, schema } = state as Record<string, unknown>
  return { postgres, prefix, schema }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}
