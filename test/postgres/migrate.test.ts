import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  assertMigrated,
  createPostgresLedger,
  getKey,
  keyUsage,
  latestSchemaVersion,
  migrate,
  organisationUsage,
  schemaVersion,
} from '../../src/postgres/index'
import { migrations } from '../../src/postgres/schema-sql'
import { createPriceCatalogue } from '../../src/pricing/price-catalogue'
import { usageCost } from '../../src/pricing/usage-cost'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'

/** Every migration's version, in order (version 5 is another branch's; 6 applies without it). */
const allVersions = migrations.map((migration) => migration.version)

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase('migrate')
})
afterAll(() => database.drop())

/** SQL that takes a schema back to what version 7 made. */
function undoVersion8(schema: string): string {
  return `DROP TABLE ${schema}.mg_usage_daily_group;`
}

/** SQL that takes a schema back to what version 6 made. */
function undoVersion7(schema: string): string {
  return `${undoVersion8(schema)}
    DROP INDEX ${schema}.mg_usage_ledger_team_ended, ${schema}.mg_usage_ledger_end_user_ended,
    ${schema}.mg_usage_ledger_ended;`
}

/** SQL that takes a schema back to what version 5 made. */
function undoVersion6(schema: string): string {
  return `${undoVersion7(schema)}
    ALTER TABLE ${schema}.mg_usage_ledger DROP COLUMN cached, DROP COLUMN saved_cost_nano;
    ALTER TABLE ${schema}.mg_usage_daily DROP COLUMN cache_hits, DROP COLUMN saved_cost_nano;
    ALTER TABLE ${schema}.mg_usage_daily_team DROP COLUMN cache_hits, DROP COLUMN saved_cost_nano;`
}

function undoVersion5(schema: string): string {
  return `${undoVersion6(schema)}
    ALTER TABLE ${schema}.mg_usage_ledger DROP COLUMN kind;`
}

function undoVersion4(schema: string): string {
  return `${undoVersion5(schema)}
    DROP TABLE ${schema}.mg_teams, ${schema}.mg_usage_daily_team;
    ALTER TABLE ${schema}.mg_api_keys DROP COLUMN team;
    ALTER TABLE ${schema}.mg_usage_ledger DROP COLUMN team, DROP COLUMN end_user;`
}

/** SQL that takes a schema back to what version 2 made. */
function undoVersion3(schema: string): string {
  return `${undoVersion4(schema)}
    ALTER TABLE ${schema}.mg_usage_ledger DROP COLUMN cache_write_input_tokens,
      DROP COLUMN cache_write_1h_input_tokens, DROP COLUMN reasoning_tokens, DROP COLUMN cost_nano,
      DROP COLUMN list_cost_nano, DROP COLUMN price;
    ALTER TABLE ${schema}.mg_usage_daily DROP COLUMN cache_write_input_tokens,
      DROP COLUMN cache_write_1h_input_tokens, DROP COLUMN reasoning_tokens, DROP COLUMN cost_nano,
      DROP COLUMN list_cost_nano, DROP COLUMN unpriced_requests;
    ALTER TABLE ${schema}.mg_api_keys DROP COLUMN budget, DROP COLUMN price_multiplier;`
}

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
    expect(first.applied.map((step) => step.version)).toEqual(allVersions)
    const second = await migrate(options)
    expect(second).toEqual({ version: latestSchemaVersion, applied: [] })

    await assertMigrated(options)
    expect(await tables('twice')).toEqual([
      'mg_api_keys',
      'mg_migrations',
      'mg_teams',
      'mg_usage_daily',
      'mg_usage_daily_group',
      'mg_usage_daily_team',
      'mg_usage_ledger',
      'mg_usage_ledger_default',
    ])
    const { rows } = await database.pool.query('SELECT version FROM twice.mg_migrations')
    expect(rows).toHaveLength(allVersions.length)
  })

  it('upgrades a version 1 database in place: the ledger gains attempts, its rows kept', async () => {
    const options = { client: database.pool, schema: 'upgrade' }
    await migrate(options)
    // Back to what version 1 made, with a row written then.
    await database.pool.query(`${undoVersion3('upgrade')}
      ALTER TABLE upgrade.mg_usage_ledger DROP COLUMN attempts;
      DELETE FROM upgrade.mg_migrations WHERE version > 1;
      INSERT INTO upgrade.mg_usage_ledger (request_id, started_at, key_id, group_id, provider_id,
        model, upstream_model, route, stream, outcome, status, duration_ms, ended_at)
      VALUES ('req_old', now(), 'k', 'g', 'g#0', 'm', 'm', 'chat.completions', false, 'ok', 200, 5, now())`)
    expect(await schemaVersion(options)).toBe(1)
    await expect(assertMigrated(options)).rejects.toThrow(
      new RegExp(`version 1; this version needs ${latestSchemaVersion}`),
    )

    const upgraded = await migrate(options)
    expect(upgraded.applied.map((step) => step.version)).toEqual(allVersions.slice(1))
    await assertMigrated(options)
    const { rows } = await database.pool.query(
      'SELECT request_id, attempts FROM upgrade.mg_usage_ledger',
    )
    expect(rows).toEqual([{ request_id: 'req_old', attempts: null }])
  })

  it('upgrades a version 2 database in place: old rows read as unpriced, new ones carry cost', async () => {
    const options = { client: database.pool, schema: 'money' }
    await migrate(options)
    // Back to what version 2 made, with the rows a version 2 gateway wrote: two requests of a key
    // in the ledger and their day in the rollup, and a key.
    await database.pool.query(`${undoVersion3('money')}
      DELETE FROM money.mg_migrations WHERE version > 2;
      INSERT INTO money.mg_usage_ledger (request_id, started_at, key_id, group_id, provider_id,
        model, upstream_model, route, stream, outcome, status, input_tokens, output_tokens,
        cached_input_tokens, total_tokens, duration_ms, ended_at, attempts)
      VALUES
        ('req_a', now() - interval '1 minute', 'k', 'g', 'g#0', 'm', 'gpt-4o', 'chat.completions',
         false, 'ok', 200, 100, 10, 0, 110, 5, now() - interval '1 minute', null),
        ('req_b', now() - interval '1 minute', 'k', 'g', 'g#0', 'm', 'gpt-4o', 'chat.completions',
         true, 'ok', 200, 200, 20, 50, 220, 5, now() - interval '1 minute', null);
      INSERT INTO money.mg_usage_daily (key_id, day, model, requests, error_requests,
        aborted_requests, input_tokens, output_tokens, cached_input_tokens, total_tokens)
      VALUES ('k', (now() AT TIME ZONE 'UTC')::date, 'm', 2, 0, 0, 300, 30, 50, 330);
      INSERT INTO money.mg_api_keys (id, public_id, secret_hash)
      VALUES ('old-key', 'pub123456789', '${'0'.repeat(64)}');`)
    expect(await schemaVersion(options)).toBe(2)
    await expect(assertMigrated(options)).rejects.toThrow(
      new RegExp(`version 2; this version needs ${latestSchemaVersion}`),
    )

    const upgraded = await migrate(options)
    expect(upgraded.applied).toEqual([
      {
        version: 3,
        name: 'token categories, cost and price of each request; key budgets in money',
      },
      { version: 4, name: 'teams; the team of keys and ledger rows; end users of ledger rows' },
      { version: 5, name: 'the kind of a ledger row: tool for an MCP tool call' },
      { version: 6, name: 'response cache hits and the money they saved' },
      {
        version: 7,
        name: 'ledger indexes for the budgets of teams, the organisation and end users',
      },
      { version: 8, name: 'the daily rollup per routing group' },
    ])
    await assertMigrated(options)
    // The old rows are all there, unpriced (null), never free (0).
    const ledger = await database.pool.query(
      `SELECT request_id, total_tokens::int, cost_nano, list_cost_nano, price, reasoning_tokens
       FROM money.mg_usage_ledger ORDER BY request_id`,
    )
    expect(ledger.rows).toEqual([
      {
        request_id: 'req_a',
        total_tokens: 110,
        cost_nano: null,
        list_cost_nano: null,
        price: null,
        reasoning_tokens: null,
      },
      {
        request_id: 'req_b',
        total_tokens: 220,
        cost_nano: null,
        list_cost_nano: null,
        price: null,
        reasoning_tokens: null,
      },
    ])
    const report = await keyUsage(options, 'k')
    expect(report.lifetime).toMatchObject({
      requests: 2,
      totalTokens: 330,
      costNanoUsd: 0,
      unpricedRequests: 2,
    })
    const key = await getKey(options, 'old-key')
    expect(key).toMatchObject({ id: 'old-key', budget: [], priceMultiplier: undefined })

    // A version 3 ledger adds a priced request beside them, on the same day and model.
    const ledgerWriter = createPostgresLedger({ ...options, flushIntervalMs: 60_000 })
    ledgerWriter.record({
      requestId: 'req_c',
      keyId: 'k',
      groupId: 'g',
      providerId: 'g#0',
      model: 'm',
      upstreamModel: 'gpt-4o',
      route: 'chat.completions',
      stream: false,
      usage: {
        inputTokens: 1000,
        outputTokens: 100,
        cachedInputTokens: 0,
        cacheWriteInputTokens: 0,
        cacheWrite1hInputTokens: 0,
        reasoningTokens: 40,
        totalTokens: 1100,
      },
      cost: usageCost(
        {
          inputTokens: 1000,
          outputTokens: 100,
          cachedInputTokens: 0,
          cacheWriteInputTokens: 0,
          cacheWrite1hInputTokens: 0,
          reasoningTokens: 40,
          totalTokens: 1100,
        },
        createPriceCatalogue().lookup('gpt-4o')!,
        1,
      ),
      outcome: 'ok',
      status: 200,
      startedAt: Date.now() - 1000,
      durationMs: 5,
    })
    await ledgerWriter.close()
    const after = await keyUsage(options, 'k')
    expect(after.lifetime).toMatchObject({
      requests: 3,
      totalTokens: 1430,
      reasoningTokens: 40,
      costNanoUsd: 1000 * 2500 + 100 * 10_000,
      unpricedRequests: 2,
    })
    expect(await ledgerWriter.spentSince('k', 0)).toBe(3_500_000)
    const stored = await database.pool.query(
      `SELECT price->>'model' AS model, (price->>'input')::float AS input FROM money.mg_usage_ledger WHERE request_id = 'req_c'`,
    )
    expect(stored.rows).toEqual([{ model: 'gpt-4o', input: 2.5 }])
  })

  it('upgrades a version 7 database: the per-group rollup starts empty and counts what comes after', async () => {
    const options = { client: database.pool, schema: 'groups' }
    await migrate(options)
    // Back to version 7, with a request a version 7 gateway wrote (ledger row and rollup).
    await database.pool.query(`${undoVersion8('groups')}
      DELETE FROM groups.mg_migrations WHERE version > 7;
      INSERT INTO groups.mg_usage_ledger (request_id, started_at, key_id, group_id, provider_id,
        model, upstream_model, route, stream, outcome, status, total_tokens, cost_nano,
        duration_ms, ended_at)
      VALUES ('req_before', now() - interval '1 minute', 'k', 'faq', 'faq#0', 'm', 'm',
        'chat.completions', false, 'ok', 200, 10, 500, 5, now() - interval '1 minute');
      INSERT INTO groups.mg_usage_daily (key_id, day, model, requests, error_requests,
        aborted_requests, input_tokens, output_tokens, cached_input_tokens, total_tokens, cost_nano)
      VALUES ('k', (now() AT TIME ZONE 'UTC')::date, 'm', 1, 0, 0, 0, 0, 0, 10, 500);`)
    expect(await schemaVersion(options)).toBe(7)
    await expect(assertMigrated(options)).rejects.toThrow(/version 7; this version needs 8/)

    const upgraded = await migrate(options)
    expect(upgraded.applied).toEqual([{ version: 8, name: 'the daily rollup per routing group' }])
    const writer = createPostgresLedger({ ...options, flushIntervalMs: 60_000 })
    writer.record({
      requestId: 'req_after',
      keyId: 'k',
      groupId: 'faq',
      providerId: 'faq#0',
      model: 'm',
      upstreamModel: 'm',
      route: 'chat.completions',
      stream: false,
      usage: undefined,
      outcome: 'ok',
      status: 200,
      startedAt: Date.now() - 1000,
      durationMs: 5,
    })
    await writer.close()
    const report = await organisationUsage(options)
    expect(report.totals).toMatchObject({ requests: 2, costNanoUsd: 500 })
    // The request before the upgrade is in no group's row: the rollup is not filled from the
    // ledger.
    expect(report.groups).toEqual([
      expect.objectContaining({ groupId: 'faq', requests: 1, costNanoUsd: 0 }),
    ])
  })

  it('moves rows the default partition took into their month when it creates the partition, logging nothing', async () => {
    const options = { client: database.pool, schema: 'parted' }
    await migrate(options)
    // Rows written before the month had a partition (as an upgraded database's are) sit in the
    // default partition; Postgres refuses to create a partition over them.
    await database.pool.query(`INSERT INTO parted.mg_usage_ledger (request_id, started_at, key_id,
        group_id, provider_id, model, upstream_model, route, stream, outcome, status, duration_ms,
        ended_at)
      VALUES ('req_early', now() - interval '1 second', 'k', 'g', 'g#0', 'm', 'm',
        'chat.completions', false, 'ok', 200, 5, now())`)
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      const ledger = createPostgresLedger({ ...options, flushIntervalMs: 60_000 })
      ledger.record({
        requestId: 'req_late',
        keyId: 'k',
        usage: undefined,
        groupId: 'g',
        providerId: 'g#0',
        model: 'm',
        upstreamModel: 'm',
        route: 'chat.completions',
        stream: false,
        outcome: 'ok',
        status: 200,
        startedAt: Date.now() - 1000,
        durationMs: 5,
      })
      await ledger.close()
      expect(ledger.stats()).toMatchObject({ written: 1, lost: 0, rejected: 0 })
      expect(errors.mock.calls.map((call) => String(call[0]))).toEqual([])
    } finally {
      errors.mockRestore()
    }
    const month = new Date().toISOString().slice(0, 7).replace('-', '')
    const where = await database.pool.query(
      `SELECT tableoid::regclass::text AS partition, request_id FROM parted.mg_usage_ledger
       ORDER BY request_id`,
    )
    expect(where.rows).toEqual([
      { partition: `parted.mg_usage_ledger_p${month}`, request_id: 'req_early' },
      { partition: `parted.mg_usage_ledger_p${month}`, request_id: 'req_late' },
    ])
    // The moved partition has the ledger's key: a replayed request id is still refused.
    await expect(
      database.pool.query(`INSERT INTO parted.mg_usage_ledger (request_id, started_at, key_id,
          group_id, provider_id, model, upstream_model, route, stream, outcome, status,
          duration_ms, ended_at)
        SELECT request_id, started_at, key_id, group_id, provider_id, model, upstream_model,
          route, stream, outcome, status, duration_ms, ended_at
        FROM parted.mg_usage_ledger WHERE request_id = 'req_early'`),
    ).rejects.toThrow(/duplicate key/)
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
      expect(results.flatMap((result) => result.applied.map((step) => step.version))).toEqual(
        allVersions,
      )
      const { rows } = await database.pool.query(
        'SELECT version FROM racing.mg_migrations ORDER BY version',
      )
      expect(rows).toEqual(allVersions.map((version) => ({ version })))
    } finally {
      await Promise.all(clients.map((client) => client.end()))
    }
  })

  it('keeps two prefixes in one schema apart', async () => {
    await migrate({ client: database.pool, schema: 'shared', prefix: 'alpha' })
    await migrate({ client: database.pool, schema: 'shared', prefix: 'beta' })
    const names = await tables('shared')
    expect(names.filter((name) => name.startsWith('alpha_'))).toHaveLength(8)
    expect(names.filter((name) => name.startsWith('beta_'))).toHaveLength(8)
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
