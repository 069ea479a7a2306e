import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, runCliJson, serveCli, writeConfig, type ServedCli } from '../helpers/cli'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'

/**
 * Response-cache hits and the money they saved in the CLI's reports: a served gateway on
 * PostgreSQL answers a repeat from its cache; `model-gateway usage` and `keys usage` show the hit
 * and the first call's cost as saved, per key and per routing group.
 */
let database: TestDatabase
let gateway: ServedCli | undefined
beforeAll(async () => {
  database = await createTestDatabase('cli_cache_usage')
})
afterAll(async () => {
  await gateway?.stop('SIGKILL')
  await database.drop()
})

const config = {
  groups: [
    {
      id: 'faq',
      protocol: 'openai',
      models: ['demo-echo'],
      upstreams: [{ provider: 'mock' }],
      cache: { ttlSeconds: 60 },
    },
    {
      id: 'chat',
      protocol: 'openai',
      models: [{ name: 'chat-echo', upstreamModel: 'demo-echo' }],
      upstreams: [{ provider: 'mock' }],
    },
  ],
  prices: { 'demo-echo': { input: 1000, output: 2000 } },
  state: { postgres: '${MG_TEST_DATABASE_URL}', schema: 'cached', ledger: { flushIntervalMs: 50 } },
}

describe('cache hits in the CLI usage reports', { timeout: 90_000 }, () => {
  it('shows 1 hit and the first call’s cost saved, per key, per group and in all', async () => {
    const path = writeConfig(config)
    const env = { MG_TEST_DATABASE_URL: database.url }
    expect((await runCli(['migrate', '--config', path], env)).code).toBe(0)
    const created = await runCliJson(['keys', 'create', '--config', path, '--name', 'faq'], env)
    gateway = await serveCli(['--config', path, '--port', '0'], env)
    const client = new OpenAI({ apiKey: created.key, baseURL: `${gateway.url}/v1` })
    const messages = [{ role: 'user' as const, content: 'Where is the FAQ?' }]
    await client.chat.completions.create({ model: 'demo-echo', messages })
    const { response } = await client.chat.completions
      .create({ model: 'demo-echo', messages })
      .withResponse()
    expect(response.headers.get('x-gateway-cache')).toBe('hit')
    // The same question in a group that does not cache: a request of its own, no hit.
    await client.chat.completions.create({ model: 'chat-echo', messages })

    let org: Record<string, any> = {}
    for (let attempt = 0; attempt < 50; attempt += 1) {
      org = await runCliJson(['usage', '--config', path], env)
      if (org['totals']['requests'] >= 3) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    // Two priced calls of the same size: each cost what the hit saved.
    const cost = (org['totals']['costNanoUsd'] as number) / 2
    expect(cost).toBeGreaterThan(0)
    expect(org['totals']).toMatchObject({ requests: 3, cacheHits: 1, savedCostNanoUsd: cost })
    expect(org['keys']).toEqual([
      expect.objectContaining({ keyId: created.id, cacheHits: 1, savedCostNanoUsd: cost }),
    ])
    expect(org['groups']).toEqual([
      expect.objectContaining({ groupId: 'chat', requests: 1, cacheHits: 0, costNanoUsd: cost }),
      expect.objectContaining({
        groupId: 'faq',
        requests: 2,
        cacheHits: 1,
        costNanoUsd: cost,
        savedCostNanoUsd: cost,
      }),
    ])

    const text = (await runCli(['usage', '--config', path], env)).stdout
    expect(text).toMatch(/Spend per key:\nKEY\s+REQUESTS.*\bCACHE-HITS\s+SAVED$/m)
    expect(text).toMatch(new RegExp(`^${created.id}\\s+3\\s.*\\s1\\s+\\$0\\.\\d+$`, 'm'))
    expect(text).toMatch(/Spend per group:\nGROUP\s+REQUESTS.*\bCACHE-HITS\s+SAVED$/m)
    expect(text).toMatch(/^faq\s+2\s.*\s1\s+\$0\.\d+$/m)
    expect(text).toMatch(/^chat\s+1\s.*\s0\s+\$0$/m)
    expect(text).toMatch(/Total: 3 requests, \d+ tokens, \$0\.\d+ \(1 cache hits saved \$0\.\d+\)/)

    const keyReport = await runCliJson(['keys', 'usage', created.id, '--config', path], env)
    expect(keyReport['totals']).toMatchObject({ cacheHits: 1, savedCostNanoUsd: cost })
    const keyText = (await runCli(['keys', 'usage', created.id, '--config', path], env)).stdout
    expect(keyText).toMatch(/Lifetime: 3 requests, \d+ tokens, \$0\.\d+ \(1 cache hits saved/)
  })
})
