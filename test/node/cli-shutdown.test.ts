import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey } from '../../src/postgres/index'
import { runCli, serveCli, writeConfig, type ServedCli } from '../helpers/cli'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'

let database: TestDatabase
const served: ServedCli[] = []
// Each test spawns CLI processes (1–3 s each on two loaded cores), hence the longer budget.
beforeAll(async () => {
  database = await createTestDatabase('cli_shutdown')
})
afterAll(async () => {
  await Promise.all(served.map((gateway) => gateway.stop('SIGKILL')))
  await database.drop()
})

function configFor(schema: string, ledger: Record<string, number> = {}) {
  return {
    groups: [
      { id: 'demo', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] },
      {
        id: 'slow',
        protocol: 'openai',
        models: ['slow-echo'],
        upstreams: [{ provider: 'mock', chunkDelayMs: 50, reply: 'word '.repeat(400) }],
      },
    ],
    state: { postgres: '${MG_TEST_DATABASE_URL}', schema, ledger },
  }
}
const env = () => ({ MG_TEST_DATABASE_URL: database.url })

describe('the CLI with state.postgres', { timeout: 60_000 }, () => {
  it('migrates at start, or with --no-migrate refuses a database that is behind', async () => {
    const refused = await runCli(
      ['--config', writeConfig(configFor('behind')), '--port', '0', '--no-migrate'],
      env(),
    )
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      /schema version 0; this version needs 8\. Run `model-gateway migrate`/,
    )

    const gateway = await serveCli(
      ['--config', writeConfig(configFor('behind')), '--port', '0'],
      env(),
    )
    served.push(gateway)
    expect(gateway.output()).toContain('applied schema migration 1')
    expect(gateway.output()).toContain('applied schema migration 2')
    expect(await gateway.stop()).toBe(0)
  })

  it('writes every queued ledger row to Postgres on SIGTERM, streams cut mid-way included', async () => {
    const schema = 'drain'
    // Nothing is written before the signal: a 10-minute interval and a batch larger than the run.
    const config = configFor(schema, { flushIntervalMs: 600_000, batchSize: 100_000 })
    const gateway = await serveCli(['--config', writeConfig(config), '--port', '0'], env())
    served.push(gateway)
    const { key } = await createKey({ client: database.pool, schema }, { name: 'drain' })
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 })

    const total = 1000
    let next = 0
    const worker = async () => {
      while (next < total) {
        const index = next++
        const messages = [{ role: 'user' as const, content: `request ${index}` }]
        if (index % 2 === 0) {
          await client.chat.completions.create({ model: 'demo-echo', messages })
        } else {
          const stream = await client.chat.completions.create({
            model: 'demo-echo',
            messages,
            stream: true,
          })
          for await (const chunk of stream) void chunk
        }
      }
    }
    await Promise.all(Array.from({ length: 25 }, worker))

    // Twenty streams still running when the signal arrives.
    const inFlight = 20
    const slow = await Promise.all(
      Array.from({ length: inFlight }, () =>
        client.chat.completions.create({
          model: 'slow-echo',
          messages: [{ role: 'user', content: 'take your time' }],
          stream: true,
        }),
      ),
    )
    const reading = slow.map(async (stream) => {
      try {
        for await (const chunk of stream) void chunk
      } catch {
        // The server went away mid-stream: expected.
      }
    })
    await new Promise((resolve) => setTimeout(resolve, 200))

    const before = await database.pool.query(
      `SELECT count(*)::int AS n FROM ${schema}.mg_usage_ledger`,
    )
    expect(before.rows[0].n).toBe(0)
    expect(await gateway.stop('SIGTERM')).toBe(0)
    await Promise.all(reading)

    const { rows } = await database.pool.query(
      `SELECT count(*)::int AS rows, count(DISTINCT request_id)::int AS ids,
         count(*) FILTER (WHERE outcome = 'aborted')::int AS aborted,
         count(*) FILTER (WHERE model = 'slow-echo')::int AS slow
       FROM ${schema}.mg_usage_ledger`,
    )
    expect(rows[0]).toEqual({
      rows: total + inFlight,
      ids: total + inFlight,
      aborted: inFlight,
      slow: inFlight,
    })
    const rollup = await database.pool.query(
      `SELECT sum(requests)::int AS requests FROM ${schema}.mg_usage_daily`,
    )
    expect(rollup.rows[0].requests).toBe(total + inFlight)
    expect(gateway.output()).toMatch(/SIGTERM, shutting down; writing \d+ queued usage records/)
    expect(gateway.output()).toContain(
      `usage ledger wrote ${total + inFlight} rows, lost 0, dropped 0`,
    )
  })
})
