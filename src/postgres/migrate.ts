import type { PostgresOptions } from './client'
import { randomToken } from './random'
import { latestSchemaVersion, migrations } from './schema-sql'
import { resolveTables } from './tables'

/** What `migrate` did. */
export type MigrationResult = {
  /** The schema version the database is at now. */
  version: number
  /** The migrations this call applied (none when the database was up to date). */
  applied: Array<{ version: number; name: string }>
}

/**
 * Creates or upgrades model-gateway's tables. Safe to run twice and from several instances at
 * once: everything runs as one `DO` block, in one transaction, under a transaction-scoped advisory
 * lock, and a migrations table records what is applied. An instance that waits on the lock finds
 * the work done when it gets it. One statement means it works through any pool, on any connection.
 *
 * @example
 * const { version, applied } = await migrate({ client: pool })
 */
export async function migrate(options: PostgresOptions): Promise<MigrationResult> {
  const tables = resolveTables(options)
  const token = randomToken(16)
  const steps = migrations
    .map(
      (migration) => `
  IF NOT EXISTS (SELECT 1 FROM ${tables.migrations} WHERE version = ${migration.version}) THEN
${migration.sql(tables)}
    INSERT INTO ${tables.migrations} (version, name, applied_by)
      VALUES (${migration.version}, ${literal(migration.name)}, '${token}');
  END IF;`,
    )
    .join('\n')
  await options.client.query(`DO $mg_migrate$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext(${literal(tables.lockName)}));
  ${tables.schema === undefined ? '' : `CREATE SCHEMA IF NOT EXISTS "${tables.schema}";`}
  CREATE TABLE IF NOT EXISTS ${tables.migrations} (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    applied_by text NOT NULL
  );
${steps}
END
$mg_migrate$`)
  const { rows } = await options.client.query(
    `SELECT version::text AS version, name, applied_by FROM ${tables.migrations} ORDER BY version`,
  )
  return {
    version: rows.reduce((highest, row) => Math.max(highest, Number(row.version)), 0),
    applied: rows
      .filter((row) => row.applied_by === token)
      .map((row) => ({ version: Number(row.version), name: String(row.name) })),
  }
}

/** The schema version of the database: 0 when model-gateway's tables are not there. */
export async function schemaVersion(options: PostgresOptions): Promise<number> {
  const tables = resolveTables(options)
  // to_regclass reads the name as SQL would, quotes included, and is null when it is missing.
  const { rows } = await options.client.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [
    tables.migrations,
  ])
  if (rows[0]?.present !== true) return 0
  const result = await options.client.query(
    `SELECT coalesce(max(version), 0)::text AS version FROM ${tables.migrations}`,
  )
  return Number(result.rows[0]?.version ?? 0)
}

/**
 * Throws unless the database has every migration this code needs: what a gateway started with
 * `--no-migrate` checks, so that it fails at start rather than on the first request.
 *
 * @returns the database's schema version
 */
export async function assertMigrated(options: PostgresOptions): Promise<number> {
  const version = await schemaVersion(options)
  if (version < latestSchemaVersion) {
    throw new Error(
      `The database is at model-gateway schema version ${version}; this version needs ${latestSchemaVersion}. Run \`model-gateway migrate\`.`,
    )
  }
  return version
}

/** A SQL string literal. */
export function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`
}
