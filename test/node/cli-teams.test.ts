import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresLedger, migrate } from '../../src/postgres/index'
import type { UsageRecord } from '../../src/usage/usage-meter'
import { runCli, runCliJson, serveCli, writeConfig, type ServedCli } from '../helpers/cli'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'

let database: TestDatabase
let db: string[]
// Each test spawns CLI processes (1–3 s each on two loaded cores), hence the longer budget.
beforeAll(async () => {
  database = await createTestDatabase('cli_teams')
  db = ['--database', database.url, '--schema', 'cli']
  await migrate({ client: database.pool, schema: 'cli' })
})
const served: ServedCli[] = []
afterAll(async () => {
  await Promise.all(served.map((gateway) => gateway.stop('SIGKILL')))
  await database.drop()
})

/** A settled request of a key in a team, costing `nano` nano-USD. */
function teamRecord(id: string, keyId: string, team: string, nano: number): UsageRecord {
  const record: UsageRecord & { team: string } = {
    requestId: id,
    keyId,
    team,
    groupId: 'demo',
    providerId: 'demo#0',
    model: 'demo-echo',
    upstreamModel: 'demo-echo',
    route: 'chat.completions',
    stream: false,
    usage: {
      inputTokens: 100,
      outputTokens: 20,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 120,
    },
    cost: { nanoUsd: nano, listNanoUsd: nano, price: { model: 'demo-echo' } as never },
    outcome: 'ok',
    status: 200,
    startedAt: Date.now() - 1000,
    durationMs: 5,
  }
  return record
}

describe('model-gateway teams', { timeout: 90_000 }, () => {
  it('creates, lists, updates and reports teams; keys join them', async () => {
    const created = await runCliJson([
      'teams',
      'create',
      'data',
      ...db,
      '--name',
      'Data team',
      '--budget',
      '500/month',
      '--requests-per-minute',
      '120',
    ])
    expect(created).toMatchObject({
      id: 'data',
      name: 'Data team',
      groups: null,
      limits: { requestsPerMinute: 120 },
      budget: [{ usd: 500, per: 'month' }],
      keys: [],
    })

    const member = await runCliJson(['keys', 'create', ...db, '--name', 'etl', '--team', 'data'])
    expect(member).toMatchObject({ team: 'data' })
    expect(await runCliJson(['keys', 'list', ...db, '--team', 'data'])).toEqual([
      expect.objectContaining({ id: member.id, team: 'data' }),
    ])

    const updated = await runCliJson([
      'teams',
      'update',
      'data',
      ...db,
      '--budget',
      '20/day,400/month',
      '--requests-per-minute',
      'none',
      '--concurrency',
      '3',
    ])
    expect(updated).toMatchObject({
      limits: { concurrency: 3 },
      budget: [
        { usd: 20, per: 'day' },
        { usd: 400, per: 'month' },
      ],
      keys: [member.id],
    })

    const table = await runCli(['teams', 'list', ...db])
    expect(table.code).toBe(0)
    expect(table.stdout).toMatch(/^ID\s+NAME\s+GROUPS\s+QUOTA\s+LIMITS\s+BUDGET\s+KEYS\n/)
    expect(table.stdout).toMatch(
      /data\s+Data team\s+all\s+-\s+concurrent=3\s+\$20\/day \$400\/month\s+1/,
    )

    // Two requests of the team's key, as the gateway's ledger writes them.
    const ledger = createPostgresLedger({ client: database.pool, schema: 'cli' })
    ledger.record(teamRecord('req_1', member.id, 'data', 1_500_000_000))
    ledger.record(teamRecord('req_2', member.id, 'data', 500_000_000))
    await ledger.close()

    const usage = await runCliJson(['teams', 'usage', 'data', ...db])
    expect(usage.totals).toMatchObject({ requests: 2, totalTokens: 240, costNanoUsd: 2e9 })
    expect(usage.keys).toEqual([expect.objectContaining({ keyId: member.id, requests: 2 })])
    expect(usage.budgets).toEqual([
      { usd: 20, per: 'day', spentNanoUsd: 2e9, leftNanoUsd: 18e9 },
      { usd: 400, per: 'month', spentNanoUsd: 2e9, leftNanoUsd: 398e9 },
    ])
    const text = await runCli(['teams', 'usage', 'data', ...db])
    expect(text.stdout).toContain('Usage of team data (Data team)')
    expect(text.stdout).toMatch(/Spend per key:\nKEY\s+REQUESTS[^\n]*\n\S+\s+2\s/)
    expect(text.stdout).toContain('Budget $20/day: $2 spent today, $18 left')

    // The organisation's report breaks spend down by team.
    const org = await runCliJson(['usage', ...db])
    expect(org.teams).toEqual([expect.objectContaining({ team: 'data', costNanoUsd: 2e9 })])
    const orgText = await runCli(['usage', ...db])
    expect(orgText.stdout).toMatch(/Spend per team:\nTEAM\s+REQUESTS[^\n]*\ndata\s+2\s/)
  })

  it('refuses an unknown team, naming it; takes a team of the config', async () => {
    const unknown = await runCli(['keys', 'create', ...db, '--team', 'ghost'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('No team "ghost"')
    const missing = await runCli(['teams', 'usage', 'ghost', ...db])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('no team with id "ghost"')
    const taken = await runCli(['teams', 'create', 'data', ...db])
    expect(taken.code).toBe(1)
    expect(taken.stderr).toContain('A team with id "data" exists already')
    const noId = await runCli(['teams', 'create', ...db])
    expect(noId.code).toBe(2)
    expect(noId.stderr).toContain('teams create needs a team id')

    const path = writeConfig({
      groups: [
        {
          id: 'demo',
          protocol: 'openai',
          models: ['demo-echo'],
          upstreams: [{ provider: 'mock' }],
        },
      ],
      teams: [{ id: 'ops', budget: { usd: 50, per: 'month' } }],
      state: { postgres: '${MG_TEST_DATABASE_URL}', schema: 'cli' },
    })
    const env = { MG_TEST_DATABASE_URL: database.url }
    const fromConfig = await runCliJson(['keys', 'create', '--config', path, '--team', 'ops'], env)
    expect(fromConfig.team).toBe('ops')
    const configTeam = await runCli(['teams', 'create', 'ops', '--config', path], env)
    expect(configTeam.code).toBe(2)
    expect(configTeam.stderr).toContain('team "ops" is defined in the config')
    const badGroup = await runCli(
      ['teams', 'create', 'web', '--config', path, '--groups', 'nope'],
      env,
    )
    expect(badGroup.code).toBe(2)
    expect(badGroup.stderr).toContain('unknown group "nope"')
  })

  it('holds a database key to the limits of its database team on a served gateway', async () => {
    const path = writeConfig({
      groups: [
        {
          id: 'demo',
          protocol: 'openai',
          models: ['demo-echo'],
          upstreams: [{ provider: 'mock' }],
        },
      ],
      state: { postgres: '${MG_TEST_DATABASE_URL}', schema: 'cli' },
    })
    const env = { MG_TEST_DATABASE_URL: database.url }
    await runCliJson(
      ['teams', 'create', 'slow', '--config', path, '--requests-per-minute', '1'],
      env,
    )
    const member = await runCliJson(['keys', 'create', '--config', path, '--team', 'slow'], env)
    const gateway = await serveCli(['--config', path, '--port', '0'], env)
    served.push(gateway)
    const client = new OpenAI({ apiKey: member.key, baseURL: `${gateway.url}/v1` })
    const ask = () =>
      client.chat.completions.create({
        model: 'demo-echo',
        messages: [{ role: 'user', content: 'one a minute' }],
      })
    expect((await ask()).choices[0]?.message.content).toBe('You said: one a minute')
    // Asked without an SDK, which would wait out the team's minute and retry: the answer itself.
    const refused = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-echo', messages: [{ role: 'user', content: 'again' }] }),
    })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    const body = (await refused.json()) as { error: { message: string } }
    expect(body.error.message).toMatch(/team "slow"/i)
  })
})
