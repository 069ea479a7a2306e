import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { runCli, runCliJson, serveCli, writeConfig, type ServedCli } from '../helpers/cli'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'

/**
 * Money through the CLI: `keys create --budget … --price-multiplier …`, a served gateway that logs
 * each request's cost and refuses a spent budget, `keys usage` with spend per model and per day,
 * and `model-gateway usage` across every key.
 */
let database: TestDatabase
let gateway: ServedCli | undefined
beforeAll(async () => {
  database = await createTestDatabase('cli_spend')
})
afterAll(async () => {
  await gateway?.stop('SIGKILL')
  await database.drop()
})

const config = {
  groups: [
    {
      id: 'demo',
      protocol: 'openai',
      models: ['demo-echo', { name: 'priced', upstreamModel: 'gpt-4o-mini' }],
      upstreams: [{ provider: 'mock' }],
    },
  ],
  // The mock's echo model costs $1,000 / $2,000 per 1M tokens here: a few calls spend a budget.
  prices: { 'demo-echo': { input: 1000, output: 2000 } },
  state: { postgres: '${MG_TEST_DATABASE_URL}', schema: 'spend', ledger: { flushIntervalMs: 50 } },
}

describe('money through the CLI', { timeout: 90_000 }, () => {
  it('creates a key with budgets, serves and refuses it, and reports its spend per model and day', async () => {
    const path = writeConfig(config)
    const env = { MG_TEST_DATABASE_URL: database.url }
    expect((await runCli(['migrate', '--config', path], env)).code).toBe(0)
    const created = await runCliJson(
      [
        'keys',
        'create',
        '--config',
        path,
        '--name',
        'team-a',
        '--budget',
        '0.05/day,1/month',
        '--budget-alert-at',
        '0.8',
        '--price-multiplier',
        '1.5',
      ],
      env,
    )
    expect(created).toMatchObject({
      budget: [
        { usd: 0.05, per: 'day', alertAt: 0.8 },
        { usd: 1, per: 'month', alertAt: 0.8 },
      ],
      priceMultiplier: 1.5,
    })
    const table = await runCli(['keys', 'list', '--config', path], env)
    expect(table.stdout).toContain('$0.05/day@80% $1/month@80% ×1.5')

    gateway = await serveCli(['--config', path, '--port', '0'], env)
    const client = new OpenAI({ apiKey: created.key, baseURL: `${gateway.url}/v1` })
    const messages = [{ role: 'user' as const, content: 'Hello' }]
    await client.chat.completions.create({ model: 'priced', messages })
    let refusal: unknown
    for (let call = 0; call < 20 && refusal === undefined; call += 1) {
      await client.chat.completions
        .create({ model: 'demo-echo', messages, max_tokens: 10 })
        .catch((error: unknown) => (refusal = error))
    }
    expect(refusal).toMatchObject({ status: 429, code: 'budget_exceeded' })
    // Each request's log line says what it cost; the CLI writes its log once per event-loop turn,
    // so the last line may follow the answer by a turn.
    const served = gateway
    await vi.waitFor(() => {
      expect(served.output()).toMatch(/ 200 POST \/v1\/chat\/completions .* cost=\$0\.0\d+ /)
      expect(served.output()).toMatch(/ 429 POST \/v1\/chat\/completions .*budget of \$0\.05/)
    })
    // The 80 % threshold of the day was crossed once: one alert line.
    expect(
      gateway
        .output()
        .match(
          / budget-alert key=\S+ per=day spent=\$0\.0\d+ alertAt=\$0\.04 limit=\$0\.05 resets=\d{4}-/g,
        ),
    ).toHaveLength(1)

    // The ledger has the rows once they are flushed (50 ms).
    let report: Record<string, any> = {}
    for (let attempt = 0; attempt < 50; attempt += 1) {
      report = await runCliJson(['keys', 'usage', created.id, '--config', path], env)
      if (report['totals']['requests'] >= 2) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const models = Object.fromEntries(
      (report['models'] as Array<Record<string, any>>).map((row) => [row['model'], row]),
    )
    expect(Object.keys(models).sort()).toEqual(['demo-echo', 'priced'])
    expect(models['priced']['costNanoUsd']).toBeGreaterThan(0)
    // At the multiplier: charged 1.5 × list.
    expect(report['totals']['costNanoUsd']).toBe(report['totals']['listCostNanoUsd'] * 1.5)
    expect(report['totals']['costNanoUsd']).toBeGreaterThanOrEqual(50_000_000)

    const text = await runCli(['keys', 'usage', created.id, '--config', path], env)
    expect(text.stdout).toContain('Spend per model:')
    expect(text.stdout).toContain('Spend per day:')
    expect(text.stdout).toMatch(
      /^priced\s+1\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+\$0\.\d+\s+0\s+0\s+\$0$/m,
    )
    expect(text.stdout).toMatch(/Lifetime: \d+ requests, \d+ tokens, \$0\.\d+;/)

    // The organisation view, across every key.
    const org = await runCliJson(['usage', '--config', path], env)
    expect(org['keys']).toEqual([expect.objectContaining({ keyId: created.id })])
    expect(org['totals']['costNanoUsd']).toBe(report['totals']['costNanoUsd'])
    const orgText = await runCli(['usage', '--config', path], env)
    expect(orgText.stdout).toMatch(/Spend per key:\nKEY\s+REQUESTS/)
    expect(orgText.stdout).toContain(created.id)
    expect(orgText.stdout).toMatch(
      /Total: \d+ requests, \d+ tokens, \$0\.\d+ \(\$0\.\d+ at list price\)/,
    )

    // Clearing the budget lets the key call again (the served gateway drops its cached copy).
    const cleared = await runCliJson(
      [
        'keys',
        'update',
        created.id,
        '--config',
        path,
        '--budget',
        'none',
        '--price-multiplier',
        'none',
      ],
      env,
    )
    expect(cleared).toMatchObject({ budget: null, priceMultiplier: null })
    const bad = await runCli(
      ['keys', 'update', created.id, '--config', path, '--budget', '5/week'],
      env,
    )
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--budget takes <usd>/<day|month|lifetime>')
  })
})
