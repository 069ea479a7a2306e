import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assertMigrated,
  latestSchemaVersion,
  migrate,
  schemaVersion,
} from '../../src/postgres/index'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase('migrate')
})
afterAll(() => database.drop())

async function tables(schema: string): Promise<string[]> {
  const { rows } = await database.pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
    [schema],
  )
  return rows.map((row) => row.name)
}

describe('migrate', () => {
  it('creates the tables once; a second run applies nothing', async () => {
    const options = { client: database.pool, schema: 'twice' }
    expect(await schemaVersion(options)).toBe(0)
    await expect(assertMigrated(options)).rejects.toThrow(/version 0.*Run `model-gateway migrate`/)

    const first = await migrate(options)
    expect(first.version).toBe(latestSchemaVersion)
    expect(first.applied.map((step) => step.version)).toEqual([1, 2])
    const second = await migrate(options)
    expect(second).toEqual({ version: latestSchemaVersion, applied: [] })

    await assertMigrated(options)
    expect(await tables('twice')).toEqual([
      'mg_api_keys',
      'mg_migrations',
      'mg_usage_daily',
      'mg_usage_ledger',
      'mg_usage_ledger_default',
    ])
    const { rows } = await database.pool.query('SELECT version FROM twice.mg_migrations')
    expect(rows).toHaveLength(2)
  })

  it('upgrades a version 1 database in place: the ledger gains attempts, its rows kept', async () => {
    const options = { client: database.pool, schema: 'upgrade' }
    await migrate(options)
    // Back to what version 1 made, with a row written then.
    await database.pool.query(`ALTER TABLE upgrade.mg_usage_ledger DROP COLUMN attempts;
      DELETE FROM upgrade.mg_migrations WHERE version > 1;
      INSERT INTO upgrade.mg_usage_ledger (request_id, started_at, key_id, group_id, provider_id,
        model, upstream_model, route, stream, outcome, status, duration_ms, ended_at)
      VALUES ('req_old', now(), 'k', 'g', 'g#0', 'm', 'm', 'chat.completions', false, 'ok', 200, 5, now())`)
    expect(await schemaVersion(options)).toBe(1)
    await expect(assertMigrated(options)).rejects.toThrow(/version 1; this version needs 2/)

    const upgraded = await migrate(options)
    expect(upgraded.applied).toEqual([
      { version: 2, name: 'upstream attempts of a request that made more than one' },
    ])
    await assertMigrated(options)
    const { rows } = await database.pool.query(
      'SELECT request_id, attempts FROM upgrade.mg_usage_ledger',
    )
    expect(rows).toEqual([{ request_id: 'req_old', attempts: null }])
  })

  it('runs concurrently from eight connections: one applies, the others find it done', async () => {
    const clients = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const client = new pg.Client({ connectionString: database.url })
        await client.connect()
        return client
      }),
    )
    try {
      const results = await Promise.all(
        clients.map((client) => migrate({ client, schema: 'racing' })),
      )
      expect(results.every((result) => result.version === latestSchemaVersion)).toBe(true)
      // Exactly one caller applied each migration; the rest waited on the lock and skipped it.
      expect(results.flatMap((result) => result.applied.map((step) => step.version))).toEqual([
        1, 2,
      ])
      const { rows } = await database.pool.query(
        'SELECT version FROM racing.mg_migrations ORDER BY version',
      )
      expect(rows).toEqual([{ version: 1 }, { version: 2 }])
    } finally {
      await Promise.all(clients.map((client) => client.end()))
    }
  })

  it('keeps two prefixes in one schema apart', async () => {
    await migrate({ client: database.pool, schema: 'shared', prefix: 'alpha' })
    await migrate({ client: database.pool, schema: 'shared', prefix: 'beta' })
    const names = await tables('shared')
    expect(names.filter((name) => name.startsWith('alpha_'))).toHaveLength(5)
    expect(names.filter((name) => name.startsWith('beta_'))).toHaveLength(5)
  })

  it('refuses a schema or prefix that is not a plain identifier', async () => {
    await expect(
      migrate({ client: database.pool, schema: 'x"; DROP TABLE y; --' }),
    ).rejects.toThrow(/Invalid Postgres schema/)
    await expect(migrate({ client: database.pool, prefix: 'Mg-1' })).rejects.toThrow(
      /Invalid Postgres table prefix/,
    )
  })
})
