import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createMemoryUsageLedger,
  type GatewayConfig,
  type UsageLedger,
  type UsageRecord,
} from '../../src/index'
import { createPostgresLedger, keyUsage, migrate } from '../../src/postgres/index'
import { createRedisResponseCache, createRedisUsageMeter } from '../../src/redis/index'
import { buildGateway, fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import { gatewayHandler } from '../helpers/gemini-upstream'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { connectRedis, deletePrefix, scriptClient, uniquePrefix } from '../helpers/redis'

/** A priced, caching group: a hit saves the first call's cost. */
const groups: GatewayConfig['groups'] = [
  {
    id: 'o',
    protocol: 'openai',
    models: [{ name: 'gpt-mock', price: { input: 2, output: 4 } }],
    upstreams: [{ provider: 'mock' }],
    cache: { ttlSeconds: 60 },
  },
]

let built: ReturnType<typeof buildGateway>
const server = setupServer(gatewayHandler(gatewayUrl, () => built.gateway))
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => server.close())

/** Builds the gateway on `ledger`, sends one request twice with the OpenAI SDK. */
async function twoIdenticalRequests(ledger: UsageLedger, records: UsageRecord[]) {
  built = buildGateway({
    groups,
    keys: [{ key: keys.main, name: 'main', id: 'main' }],
    usageLedger: {
      record(record) {
        records.push(record)
        return ledger.record(record)
      },
      ...(ledger.dailyUsage === undefined ? {} : { dailyUsage: ledger.dailyUsage.bind(ledger) }),
    },
  })
  const openai = new OpenAI({
    apiKey: keys.main,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(built.gateway),
  })
  for (let index = 0; index < 2; index++) {
    await openai.chat.completions.create({
      model: 'gpt-mock',
      messages: [{ role: 'user', content: 'What is the capital of France?' }],
    })
  }
  await until(() => records.length === 2)
  expect(records.map((record) => record.cached === true)).toEqual([false, true])
  const cost = records[0]!.cost!.nanoUsd
  expect(cost).toBeGreaterThan(0)
  return cost
}

async function usageOfKey(): Promise<Record<string, any>> {
  const response = await fetchThrough(built.gateway)(`${gatewayUrl}/v1/usage`, {
    headers: { authorization: `Bearer ${keys.main}` },
  })
  expect(response.status).toBe(200)
  return (await response.json()) as Record<string, any>
}

async function until(done: () => boolean) {
  for (let waited = 0; !done() && waited < 2000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const today = () => new Date().toISOString().slice(0, 10)

describe('cache hits and savings in reports (memory meter and ledger)', () => {
  it('GET /v1/usage and the ledger report show 1 hit and the first call’s cost saved', async () => {
    const ledger = createMemoryUsageLedger()
    const records: UsageRecord[] = []
    const cost = await twoIdenticalRequests(ledger, records)
    const body = await usageOfKey()
    expect(body.usage.requests).toBe(2)
    expect(body.usage.cache_hits).toBe(1)
    expect(body.spend.saved_usd).toBeCloseTo(cost / 1e9, 12)
    expect(body.spend.total_usd).toBeCloseTo(cost / 1e9, 12)
    const report = await ledger.usageReport({ since: today(), until: today() })
    expect(report.keys).toEqual([
      expect.objectContaining({
        keyId: 'main',
        requests: 2,
        cacheHits: 1,
        savedCostNanoUsd: cost,
        costNanoUsd: cost,
      }),
    ])
    expect(report.totals).toMatchObject({ cacheHits: 1, savedCostNanoUsd: cost })
  })
})

describe('cache hits and savings on PostgreSQL', () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await createTestDatabase('cache_usage')
    await migrate({ client: database.pool })
  })
  afterAll(() => database.drop())

  it('rolls hits and savings up per key and day; /v1/usage daily shows them', async () => {
    const ledger = createPostgresLedger({ client: database.pool, flushIntervalMs: 10 })
    const records: UsageRecord[] = []
    try {
      const cost = await twoIdenticalRequests(ledger, records)
      await ledger.flush()
      const { rows } = await database.pool.query(
        `SELECT cached, saved_cost_nano::text AS saved FROM mg_usage_ledger ORDER BY started_at`,
      )
      expect(rows).toEqual([
        { cached: null, saved: null },
        { cached: true, saved: String(cost) },
      ])
      const report = await keyUsage({ client: database.pool }, 'main')
      expect(report.totals).toMatchObject({
        requests: 2,
        cacheHits: 1,
        savedCostNanoUsd: cost,
        costNanoUsd: cost,
      })
      expect(report.lifetime).toMatchObject({ cacheHits: 1, savedCostNanoUsd: cost })
      const body = await usageOfKey()
      expect(body.daily.at(-1)).toMatchObject({ date: today(), requests: 2, cache_hits: 1 })
      expect(body.daily.at(-1).saved_usd).toBeCloseTo(cost / 1e9, 12)
    } finally {
      await ledger.close()
    }
  })
})

describe('cache hits and savings on the Redis meter, two instances', () => {
  it('counts a hit served by the other instance, frees its concurrency slot, and keeps Redis healthy', async () => {
    const redis = await connectRedis()
    const prefix = uniquePrefix('cache_usage')
    const logged: string[] = []
    const logger = {
      error: (...parts: unknown[]) => void logged.push(parts.map(String).join(' ')),
      warn: (...parts: unknown[]) => void logged.push(parts.map(String).join(' ')),
      log: (...parts: unknown[]) => void logged.push(parts.map(String).join(' ')),
      info: (...parts: unknown[]) => void logged.push(parts.map(String).join(' ')),
    }
    const instance = () =>
      buildGateway({
        groups,
        // One request at a time: a hit that kept its slot would refuse the next request.
        keys: [{ key: keys.main, name: 'main', id: 'main', limits: { concurrency: 1 } }],
        usageMeter: createRedisUsageMeter({ client: scriptClient(redis), prefix, logger }),
        responseCache: createRedisResponseCache({ client: scriptClient(redis), prefix }),
      }).gateway
    const [first, second] = [instance(), instance()]
    const client = (gateway: typeof first) =>
      new OpenAI({ apiKey: keys.main, baseURL: `${gatewayUrl}/v1`, fetch: fetchThrough(gateway) })
    const messages = [{ role: 'user' as const, content: 'What is the capital of Italy?' }]
    try {
      const original = await client(first).chat.completions.create({ model: 'gpt-mock', messages })
      const answers = []
      for (const gateway of [second, first, second]) {
        const { response } = await client(gateway)
          .chat.completions.create({ model: 'gpt-mock', messages })
          .withResponse()
        answers.push(response.headers.get('x-gateway-cache'))
      }
      expect(answers).toEqual(['hit', 'hit', 'hit'])
      const usageFrom = async (gateway: typeof first) => {
        const response = await fetchThrough(gateway)(`${gatewayUrl}/v1/usage`, {
          headers: { authorization: `Bearer ${keys.main}` },
        })
        expect(response.status).toBe(200)
        return (await response.json()) as Record<string, any>
      }
      // The original call's price: 2 USD per 1M input tokens, 4 per 1M output tokens.
      const usage = original.usage!
      const cost = (usage.prompt_tokens * 2 + usage.completion_tokens * 4) / 1e6
      for (const gateway of [first, second]) {
        const body = await usageFrom(gateway)
        expect(body.usage).toMatchObject({ requests: 4, cache_hits: 3 })
        // Tokens are the original call's, counted once: hits charge no budget.
        expect(body.usage.total_tokens).toBe(usage.total_tokens)
        expect(body.spend.total_usd).toBeCloseTo(cost, 12)
        expect(body.spend.saved_usd).toBeCloseTo(3 * cost, 12)
      }
      expect(logged).toEqual([])
    } finally {
      await deletePrefix(redis, prefix)
      await redis.quit()
    }
  })
})
