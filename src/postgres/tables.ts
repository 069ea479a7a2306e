import type { PostgresOptions } from './client'

/** The quoted, schema-qualified names of model-gateway's tables, and its channel. */
export type Tables = {
  /** `"schema".` or empty. */
  schemaPrefix: string
  schema: string | undefined
  prefix: string
  migrations: string
  keys: string
  ledger: string
  daily: string
  /** Teams of keys (schema version 4). */
  teams: string
  /** The daily rollup per team, key, UTC day and model (schema version 4). */
  teamDaily: string
  /** The daily rollup per routing group, key, UTC day and model (schema version 8). */
  groupDaily: string
  /** The unquoted name of a monthly ledger partition, such as `mg_usage_ledger_p202611`. */
  partitionName(month: string): string
  /** A name in the schema, quoted. */
  qualify(name: string): string
  /** The `LISTEN`/`NOTIFY` channel of key changes. */
  keyChannel: string
  /**
   * The text that keys the advisory lock of DDL (migrations, partitions): one per schema, so that
   * installations with different prefixes cannot race on `CREATE SCHEMA` either.
   */
  lockName: string
}

const identifier = /^[a-z_][a-z0-9_]*$/

/**
 * Resolves and validates table names. Names go into SQL text (identifiers cannot be bound
 * parameters), so only lowercase letters, digits and `_` are accepted, never quotes.
 *
 * @throws Error for a schema or prefix that is not a plain lowercase identifier
 */
export function resolveTables(options: Omit<PostgresOptions, 'client'>): Tables {
  const prefix = options.prefix ?? 'mg'
  const schema = options.schema
  if (!identifier.test(prefix) || prefix.length > 24) {
    throw new Error(
      `Invalid Postgres table prefix "${prefix}": use 1 to 24 lowercase letters, digits and "_".`,
    )
  }
  if (schema !== undefined && (!identifier.test(schema) || schema.length > 30)) {
    throw new Error(
      `Invalid Postgres schema "${schema}": use up to 30 lowercase letters, digits and "_".`,
    )
  }
  const schemaPrefix = schema === undefined ? '' : `"${schema}".`
  const qualify = (name: string) => `${schemaPrefix}"${name}"`
  return {
    schemaPrefix,
    schema,
    prefix,
    migrations: qualify(`${prefix}_migrations`),
    keys: qualify(`${prefix}_api_keys`),
    ledger: qualify(`${prefix}_usage_ledger`),
    daily: qualify(`${prefix}_usage_daily`),
    teams: qualify(`${prefix}_teams`),
    teamDaily: qualify(`${prefix}_usage_daily_team`),
    groupDaily: qualify(`${prefix}_usage_daily_group`),
    partitionName: (month) => `${prefix}_usage_ledger_p${month.replace('-', '')}`,
    qualify,
    keyChannel: schema === undefined ? `${prefix}_keys` : `${schema}_${prefix}_keys`,
    lockName: `model-gateway:${schema ?? ''}`,
  }
}
