import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createGateway, createMemoryUsageMeter, type UsageRecord } from '../../src/index'
import { createPostgresLedger, keyUsage, migrate } from '../../src/postgres/index'
import { openAIClient } from '../helpers/gateway'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { startTcpProxy } from '../helpers/tcp-proxy'

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase('ledger')
})
afterAll(() => database.drop())

/** A fresh schema per test, so counts are the test's own. */
let schemas = 0
async function freshSchema(): Promise<string> {
  const schema = `ledger_${++schemas}`
  await migrate({ client: database.pool, schema })
  return schema
}

const day = Date.UTC(2026, 10, 23)

function record(index: number, overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    requestId: `req_${index}`,
    keyId: `key_${index % 3}`,
    // A second group, so that the per-group rollup has groups to tell apart.
    groupId: index % 7 === 3 ? 'g2' : 'g',
    providerId: 'g#0',
    model: index % 2 === 0 ? 'fast' : 'slow',
    upstreamModel: 'upstream-model',
    route: 'chat.completions',
    stream: index % 2 === 0,
    usage: {
      inputTokens: 10 + index,
      outputTokens: index,
      cachedInputTokens: index % 5,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 10 + 2 * index,
    },
    outcome: 'ok',
    status: 200,
    startedAt: day + index * 1000,
    durationMs: 5,
    ...overrides,
  }
}

async function count(schema: string): Promise<number> {
  const { rows } = await database.pool.query(
    `SELECT count(*)::int AS n FROM ${schema}.mg_usage_ledger`,
  )
  return rows[0].n
}

/** Sums from the ledger and from the rollup, per key, day and model: they must agree. */
async function rollupMatchesLedger(schema: string) {
  const sums = `count(*)::int AS requests, coalesce(sum(input_tokens),0)::int AS input,
    coalesce(sum(output_tokens),0)::int AS output, coalesce(sum(cached_input_tokens),0)::int AS cached,
    coalesce(sum(total_tokens),0)::int AS total`
  const ledger = await database.pool.query(
    `SELECT key_id, (ended_at AT TIME ZONE 'UTC')::date::text AS day, model, ${sums}
     FROM ${schema}.mg_usage_ledger GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  )
  const daily = await database.pool.query(
    `SELECT key_id, day::text AS day, model, requests::int, input_tokens::int AS input,
       output_tokens::int AS output, cached_input_tokens::int AS cached, total_tokens::int AS total
     FROM ${schema}.mg_usage_daily ORDER BY 1, 2, 3`,
  )
  expect(daily.rows).toEqual(ledger.rows)
  // The per-group rollup: the same rows per group as well, MCP tool calls in none.
  const ledgerGroups = await database.pool.query(
    `SELECT group_id, key_id, (ended_at AT TIME ZONE 'UTC')::date::text AS day, model, ${sums}
     FROM ${schema}.mg_usage_ledger WHERE kind IS NULL GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
  )
  const groupDaily = await database.pool.query(
    `SELECT group_id, key_id, day::text AS day, model, requests::int, input_tokens::int AS input,
       output_tokens::int AS output, cached_input_tokens::int AS cached, total_tokens::int AS total
     FROM ${schema}.mg_usage_daily_group ORDER BY 1, 2, 3, 4`,
  )
  expect(groupDaily.rows).toEqual(ledgerGroups.rows)
  return daily.rows
}

describe('Postgres usage ledger', () => {
  it('writes one row per record, idempotently, with a rollup equal to the rows', async () => {
    const schema = await freshSchema()
    const ledger = createPostgresLedger({ client: database.pool, schema, batchSize: 64 })
    const records = Array.from({ length: 300 }, (_, index) =>
      record(index, index === 7 ? { usage: undefined, outcome: 'aborted', status: 499 } : {}),
    )
    for (const item of records) ledger.record(item)
    await ledger.close()
    expect(await count(schema)).toBe(300)
    expect(ledger.stats()).toMatchObject({ written: 300, queued: 0, dropped: 0, lost: 0 })

    // A replay (a retried batch, or a second instance sending the same ids) changes nothing.
    const replay = createPostgresLedger({ client: database.pool, schema })
    for (const item of records.slice(0, 150)) replay.record(item)
    await replay.close()
    expect(replay.stats().written).toBe(0)
    expect(await count(schema)).toBe(300)
    const rollup = await rollupMatchesLedger(schema)
    expect(rollup.reduce((sum, row) => sum + row.requests, 0)).toBe(300)

    const { rows } = await database.pool.query(
      `SELECT request_id, key_id, group_id, provider_id, model, upstream_model, route, stream, outcome,
         status, input_tokens::int, output_tokens::int, cached_input_tokens::int, total_tokens::int,
         estimated, duration_ms, (extract(epoch FROM started_at) * 1000)::bigint::text AS started_ms,
         (extract(epoch FROM ended_at) * 1000)::bigint::text AS ended_ms
       FROM ${schema}.mg_usage_ledger WHERE request_id IN ('req_4', 'req_7') ORDER BY request_id`,
    )
    expect(rows).toEqual([
      {
        request_id: 'req_4',
        key_id: 'key_1',
        group_id: 'g',
        provider_id: 'g#0',
        model: 'fast',
        upstream_model: 'upstream-model',
        route: 'chat.completions',
        stream: true,
        outcome: 'ok',
        status: 200,
        input_tokens: 14,
        output_tokens: 4,
        cached_input_tokens: 4,
        total_tokens: 18,
        estimated: false,
        duration_ms: 5,
        started_ms: String(day + 4000),
        ended_ms: String(day + 4005),
      },
      // No usage reported: the counts stay null, never a silent zero.
      expect.objectContaining({
        request_id: 'req_7',
        outcome: 'aborted',
        status: 499,
        input_tokens: null,
        total_tokens: null,
      }),
    ])

    // An MCP tool call counts for its key, in no routing group.
    const tools = createPostgresLedger({ client: database.pool, schema })
    tools.record(record(300, { kind: 'tool', groupId: 'mcp', usage: undefined }))
    await tools.close()
    const withTool = await rollupMatchesLedger(schema)
    expect(withTool.reduce((sum, row) => sum + row.requests, 0)).toBe(301)
    const groups = await database.pool.query(
      `SELECT group_id, sum(requests)::int AS requests FROM ${schema}.mg_usage_daily_group
       GROUP BY 1 ORDER BY 1`,
    )
    expect(groups.rows).toEqual([
      { group_id: 'g', requests: 257 },
      { group_id: 'g2', requests: 43 },
    ])
  })

  it('keeps writing after a flush() of an empty queue', async () => {
    const schema = await freshSchema()
    const ledger = createPostgresLedger({ client: database.pool, schema, flushIntervalMs: 20 })
    // What a re-seeding meter does when its Redis lost a budget before any request was queued.
    await ledger.flush()
    for (let index = 0; index < 5; index += 1) ledger.record(record(index))
    await vi.waitFor(() => expect(ledger.stats()).toMatchObject({ queued: 0, written: 5 }))
    await ledger.flush()
    expect(await count(schema)).toBe(5)
    await ledger.close()
  })

  it('puts rows in monthly partitions, made on demand', async () => {
    const schema = await freshSchema()
    const ledger = createPostgresLedger({ client: database.pool, schema })
    // Starts on January 31st, ends on February 1st: partitioned by start, rolled up by end.
    ledger.record(record(1, { startedAt: Date.UTC(2025, 0, 31, 23, 59), durationMs: 120_000 }))
    ledger.record(record(2, { startedAt: Date.UTC(2025, 1, 1, 0, 1) }))
    ledger.record(record(3, { startedAt: Date.UTC(2025, 11, 31, 12) }))
    await ledger.close()
    const { rows } = await database.pool.query(
      `SELECT tableoid::regclass::text AS partition, request_id FROM ${schema}.mg_usage_ledger ORDER BY request_id`,
    )
    expect(rows).toEqual([
      { partition: `${schema}.mg_usage_ledger_p202501`, request_id: 'req_1' },
      { partition: `${schema}.mg_usage_ledger_p202502`, request_id: 'req_2' },
      { partition: `${schema}.mg_usage_ledger_p202512`, request_id: 'req_3' },
    ])
    const days = await database.pool.query(
      `SELECT day::text AS day, sum(requests)::int AS requests FROM ${schema}.mg_usage_daily GROUP BY day ORDER BY day`,
    )
    expect(days.rows).toEqual([
      { day: '2025-02-01', requests: 2 },
      { day: '2025-12-31', requests: 1 },
    ])
  })

  it('answers usedSince from the rollup for whole days and the ledger for the rest', async () => {
    const schema = await freshSchema()
    const ledger = createPostgresLedger({ client: database.pool, schema })
    const hour = 3_600_000
    const at = (ms: number, tokens: number, index: number) =>
      record(index, {
        keyId: 'budget',
        startedAt: ms,
        usage: {
          inputTokens: tokens,
          outputTokens: 0,
          cachedInputTokens: 0,
          cacheWriteInputTokens: 0,
          cacheWrite1hInputTokens: 0,
          reasoningTokens: 0,
          totalTokens: tokens,
        },
      })
    ledger.record(at(day - 2 * 24 * hour, 1000, 1)) // two days before
    ledger.record(at(day + 1 * hour, 100, 2)) // today 01:00
    ledger.record(at(day + 5 * hour, 10, 3)) // today 05:00
    ledger.record(at(day + 24 * hour + hour, 1, 4)) // tomorrow
    ledger.record(at(day + 2 * hour, 5, 5)) // today 02:00, another key
    ledger.record({ ...at(day + 2 * hour, 5, 6), keyId: 'other' })
    ledger.record({ ...at(day + 3 * hour, 0, 7), usage: undefined })
    await ledger.close()
    expect(await ledger.usedSince('budget', 0)).toBe(1116)
    expect(await ledger.usedSince('budget', day)).toBe(116)
    expect(await ledger.usedSince('budget', day + 2 * hour)).toBe(16)
    expect(await ledger.usedSince('budget', day + 5 * hour)).toBe(11)
    // Counted by when a request ended (5 ms after it started here), as the meter settled it.
    expect(await ledger.usedSince('budget', day + 5 * hour + 5)).toBe(11)
    expect(await ledger.usedSince('budget', day + 5 * hour + 6)).toBe(1)
    expect(await ledger.usedSince('nobody', 0)).toBe(0)

    const report = await keyUsage({ client: database.pool, schema }, 'budget', {
      since: new Date(day - 3 * 24 * hour),
      until: new Date(day),
    })
    expect(report.totals.totalTokens).toBe(1115)
    expect(report.lifetime.totalTokens).toBe(1116)
    expect(report.days.map((row) => row.day)).toEqual(['2026-11-21', '2026-11-23', '2026-11-23'])
  })

  it('keeps rows queued while Postgres is down, retries, and writes them when it is back', async () => {
    const schema = await freshSchema()
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 })
    const pool = new pg.Pool({
      connectionString: database.url.replace(':5432/', `:${proxy.port}/`),
      connectionTimeoutMillis: 500,
    })
    pool.on('error', () => undefined)
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const ledger = createPostgresLedger({
      client: pool,
      schema,
      flushIntervalMs: 20,
      retryMinMs: 20,
      retryMaxMs: 100,
      maxQueue: 50,
    })
    try {
      proxy.cut()
      const started = performance.now()
      for (let index = 0; index < 60; index += 1) ledger.record(record(index))
      // Recording never waits on the database, even with it down and the queue full.
      expect(performance.now() - started).toBeLessThan(50)
      await vi.waitFor(() => expect(ledger.stats().failedWrites).toBeGreaterThanOrEqual(2), {
        timeout: 5000,
      })
      expect(ledger.stats()).toMatchObject({ queued: 50, dropped: 10, written: 0 })
      const logged = errors.mock.calls.map((call) => call.join(' ')).join('\n')
      expect(logged).toMatch(/queue is full \(50 records\): request req_50 is not recorded/)
      expect(logged).toMatch(/writing 50 rows to Postgres failed; 50 queued, retrying/)

      proxy.restore()
      await vi.waitFor(() => expect(ledger.stats().queued).toBe(0), { timeout: 5000 })
      expect(ledger.stats()).toMatchObject({ written: 50, dropped: 10 })
      expect(await count(schema)).toBe(50)
      await rollupMatchesLedger(schema)
    } finally {
      errors.mockRestore()
      await ledger.close()
      await pool.end()
      await proxy.close()
    }
  })

  it('drops only the row Postgres refuses, and says which', async () => {
    const schema = await freshSchema()
    await database.pool.query(
      `ALTER TABLE ${schema}.mg_usage_ledger ADD CONSTRAINT refuse_poison CHECK (model <> 'poison')`,
    )
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const ledger = createPostgresLedger({ client: database.pool, schema })
    for (let index = 0; index < 40; index += 1) {
      ledger.record(record(index, index === 17 ? { model: 'poison' } : {}))
    }
    // Text Postgres cannot hold as it is: a NUL and a lone surrogate.
    ledger.record(record(99, { model: 'nul\u0000and\uD800lone' }))
    await ledger.close()
    const logged = errors.mock.calls.flat().join(' ')
    errors.mockRestore()
    expect(ledger.stats()).toMatchObject({ written: 40, rejected: 1, lost: 0 })
    expect(logged).toMatch(/refused the row of request req_17/)
    const { rows } = await database.pool.query(
      `SELECT model FROM ${schema}.mg_usage_ledger WHERE request_id = 'req_99'`,
    )
    expect(rows).toEqual([{ model: 'nuland\uFFFDlone' }])
    await rollupMatchesLedger(schema)
  })

  it('close() drains a large queue in batches, and reports what it could not write', async () => {
    const schema = await freshSchema()
    const ledger = createPostgresLedger({
      client: database.pool,
      schema,
      flushIntervalMs: 60_000,
      batchSize: 5000,
    })
    for (let index = 0; index < 1200; index += 1) ledger.record(record(index))
    expect(ledger.stats().queued).toBe(1200)
    await ledger.close()
    expect(await count(schema)).toBe(1200)
    expect(ledger.stats()).toMatchObject({ written: 1200, queued: 0, lost: 0 })

    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    ledger.record(record(5000))
    expect(ledger.stats().dropped).toBe(1)
    const down = createPostgresLedger({
      client: { query: () => Promise.reject(Object.assign(new Error('down'), { code: '57P01' })) },
      schema,
      drainTimeoutMs: 200,
      retryMinMs: 20,
    })
    for (let index = 0; index < 5; index += 1) down.record(record(index))
    await down.close()
    const logged = errors.mock.calls.flat().join(' ')
    errors.mockRestore()
    expect(down.stats()).toMatchObject({ lost: 5, queued: 0 })
    expect(logged).toMatch(/5 records could not be written/)
  })
})

describe('the gateway with a Postgres ledger', () => {
  it('records every request exactly once, aborted streams included, with the meter’s tokens', async () => {
    const schema = await freshSchema()
    const meter = createMemoryUsageMeter({ maxRecords: 10_000 })
    const ledger = createPostgresLedger({ client: database.pool, schema, batchSize: 50 })
    const key = 'sk-ledger-test-0123456789abcdefABCD'
    const gateway = createGateway({
      groups: [
        {
          id: 'demo',
          protocol: 'openai',
          models: ['demo-echo'],
          upstreams: [{ provider: 'mock', chunkDelayMs: 2 }],
        },
      ],
      keys: [{ key, id: 'ledger-key' }],
      usageMeter: meter,
      usageLedger: ledger,
    })
    const client = openAIClient(gateway, key)
    const total = 200
    await Promise.all(
      Array.from({ length: total }, async (_, index) => {
        const messages = [{ role: 'user' as const, content: `message number ${index} `.repeat(5) }]
        if (index % 3 === 0) {
          await client.chat.completions.create({ model: 'demo-echo', messages })
          return
        }
        const controller = new AbortController()
        const stream = await client.chat.completions.create(
          { model: 'demo-echo', messages, stream: true, stream_options: { include_usage: true } },
          { signal: controller.signal },
        )
        let chunks = 0
        try {
          for await (const chunk of stream) {
            void chunk
            // Every fifth stream is abandoned after its second chunk.
            if (index % 5 === 1 && ++chunks === 2) controller.abort()
          }
        } catch (error) {
          if (!controller.signal.aborted) throw error
        }
      }),
    )
    await gateway.close()
    const records = meter.records()
    expect(records).toHaveLength(total)
    expect(records.filter((item) => item.outcome === 'aborted').length).toBeGreaterThan(20)
    expect(await count(schema)).toBe(total)
    const { rows } = await database.pool.query(
      `SELECT count(DISTINCT request_id)::int AS ids, coalesce(sum(total_tokens), 0)::int AS tokens,
         count(*) FILTER (WHERE outcome = 'aborted')::int AS aborted
       FROM ${schema}.mg_usage_ledger`,
    )
    const summary = meter.summary('ledger-key') as { totalTokens: number }
    expect(rows[0]).toEqual({
      ids: total,
      tokens: summary.totalTokens,
      aborted: records.filter((item) => item.outcome === 'aborted').length,
    })
    await rollupMatchesLedger(schema)
  })

  it('stores the attempts of a request that made more than one, and null for one', async () => {
    const schema = await freshSchema()
    const ledger = createPostgresLedger({ client: database.pool, schema })
    ledger.record(record(1))
    ledger.record(
      record(2, {
        groupId: 'gem',
        providerId: 'gem#0',
        attempts: [
          {
            group: 'g',
            upstream: 'g#0',
            credential: 'sk-…ab\u0000cd',
            status: 529,
            phase: 'headers',
            outcome: 'failed',
            verdict: 'failed',
            error: 'upstream_overloaded',
            durationMs: 12.6,
          },
          {
            group: 'gem',
            upstream: 'gem#0',
            phase: 'first-byte',
            outcome: 'answered',
            verdict: 'ok',
            durationMs: 40,
          },
        ],
      }),
    )
    ledger.record(
      record(3, {
        attempts: [
          {
            group: 'g',
            upstream: 'g#0',
            phase: 'first-byte',
            outcome: 'answered',
            verdict: 'ok',
            durationMs: 3,
          },
        ],
      }),
    )
    await ledger.close()
    const { rows } = await database.pool.query(
      `SELECT request_id, attempts FROM ${schema}.mg_usage_ledger ORDER BY request_id`,
    )
    expect(rows).toEqual([
      { request_id: 'req_1', attempts: null },
      {
        request_id: 'req_2',
        attempts: [
          {
            group: 'g',
            upstream: 'g#0',
            credential: 'sk-…abcd',
            status: 529,
            phase: 'headers',
            outcome: 'failed',
            verdict: 'failed',
            error: 'upstream_overloaded',
            duration_ms: 13,
          },
          {
            group: 'gem',
            upstream: 'gem#0',
            phase: 'first-byte',
            outcome: 'answered',
            verdict: 'ok',
            duration_ms: 40,
          },
        ],
      },
      // One attempt: the row's own group, provider and status tell it.
      { request_id: 'req_3', attempts: null },
    ])
  })

  it('records the attempts of a request that failed over, as the gateway made them', async () => {
    const schema = await freshSchema()
    const meter = createMemoryUsageMeter()
    const ledger = createPostgresLedger({ client: database.pool, schema })
    const key = 'sk-ledger-failover-0123456789abcd'
    const overloaded = {
      id: 'down',
      protocol: 'openai' as const,
      send: async () =>
        new Response(
          JSON.stringify({ error: { message: 'overloaded', type: 'server_error', code: null } }),
          { status: 503, headers: { 'content-type': 'application/json' } },
        ),
    }
    const gateway = createGateway({
      groups: [
        {
          id: 'demo',
          protocol: 'openai',
          models: ['demo-echo'],
          upstreams: [overloaded, { provider: 'mock', id: 'up' }],
        },
      ],
      keys: [{ key, id: 'failover-key' }],
      usageMeter: meter,
      usageLedger: ledger,
      // The weighted pick takes the first upstream: the request meets the 503 first.
      random: () => 0,
    })
    const client = openAIClient(gateway, key)
    const answer = await client.chat.completions.create(
      { model: 'demo-echo', messages: [{ role: 'user', content: 'hello' }] },
      { maxRetries: 0 },
    )
    expect(answer.choices[0]?.message.content).toBeTruthy()
    await gateway.close()
    const [made] = meter.records()
    expect(made?.attempts?.map((attempt) => [attempt.upstream, attempt.status])).toEqual([
      ['down', 503],
      ['up', 200],
    ])
    const { rows } = await database.pool.query(
      `SELECT provider_id, status, attempts FROM ${schema}.mg_usage_ledger`,
    )
    expect(rows).toEqual([
      {
        provider_id: 'up',
        status: 200,
        attempts: [
          expect.objectContaining({
            group: 'demo',
            upstream: 'down',
            status: 503,
            outcome: 'failed',
            verdict: 'failed',
          }),
          expect.objectContaining({
            group: 'demo',
            upstream: 'up',
            outcome: 'answered',
            verdict: 'ok',
          }),
        ],
      },
    ])
  })
})
