import OpenAI from 'openai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { BudgetAlert, GatewayConfig } from '../../src/index'
import { createGatewayWithState, serveGateway } from '../../src/node/index'
import { gatedUpstreams } from '../helpers/limited-gateway'
import { createTestDatabase } from '../helpers/postgres'
import { connectRedis, deletePrefix, redisUrl } from '../helpers/redis'

/**
 * A money budget shared by gateway instances through the machine's Redis (this test's own key
 * prefix), and restored from the Postgres ledger (this test's own database) after a restart.
 * Requests go over HTTP through the openai SDK, its default retries included.
 */
const key = 'sk-shared-budget-0123456789abcdefABCD'
const hello = [{ role: 'user' as const, content: 'Hello' }]
const eventually = { timeout: 15_000, interval: 25 }
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** The mock model, priced high enough that a few requests spend a budget: $1,000 / $2,000 per 1M. */
const prices = { 'gpt-test': { input: 1000, output: 2000, source: 'test', asOf: '2026-11-26' } }
/** What a reply costs, in nano-USD, from the usage it reports. */
const costOf = (usage: OpenAI.CompletionUsage) =>
  usage.prompt_tokens * 1_000_000 + usage.completion_tokens * 2_000_000

async function uniquePrefix(redis: Awaited<ReturnType<typeof connectRedis>>) {
  const prefix = `sb_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
  cleanups.push(async () => {
    await deletePrefix(redis, prefix)
  })
  return prefix
}

async function usageOf(url: string): Promise<Record<string, any>> {
  const response = await fetch(`${url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } })
  return (await response.json()) as Record<string, any>
}

describe('a money budget shared across instances', () => {
  it('holds across two gateway instances on one Redis under 200 concurrent requests, and alerts once', async () => {
    const redis = await connectRedis()
    cleanups.push(async () => redis.destroy())
    const prefix = await uniquePrefix(redis)
    const upstream = gatedUpstreams()
    const alerts: BudgetAlert[] = []
    const budget = { usd: 0.5, per: 'day' as const, alertAt: 0.5 }
    const config = (): GatewayConfig => ({
      groups: upstream.groups,
      prices,
      keys: [{ key, id: 'shared', budget }],
      state: { redis: redisUrl, prefix },
      onBudgetAlert: (alert) => alerts.push(alert),
    })
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const served = await serveGateway(await createGatewayWithState(config()), { port: 0 })
        cleanups.push(() => served.close())
        return served
      }),
    )
    const clients = instances.map(
      (instance) => new OpenAI({ apiKey: key, baseURL: `${instance.url}/v1` }),
    )
    const costs: number[] = []
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, async (_, index) => {
        const answer = await clients[index % 2]!.chat.completions.create({
          model: 'gpt-test',
          messages: hello,
          max_tokens: 20,
        })
        costs.push(costOf(answer.usage!))
      }),
    )
    const refused = results.flatMap((result) =>
      result.status === 'rejected' ? [result.reason as { status?: number; code?: string }] : [],
    )
    const limit = budget.usd * 1e9
    const spent = costs.reduce((sum, cost) => sum + cost, 0)
    const largest = Math.max(...costs)
    // Both instances read the same counts: what was served, and nothing held any more.
    const [first, second] = await Promise.all(instances.map((instance) => usageOf(instance.url)))
    expect(first!['budget']).toEqual(second!['budget'])
    expect(first!['budget'][0]).toMatchObject({
      per: 'day',
      used_usd: spent / 1e9,
      reserved_usd: 0,
    })
    console.log(
      `shared money budget $${budget.usd}/day over 2 instances, 200 concurrent requests of about $${largest / 1e9}: ` +
        `${costs.length} served, ${refused.length} refused; spent ${spent} nano-USD, overshoot ${Math.max(0, spent - limit)}`,
    )
    expect(costs.length + refused.length).toBe(200)
    expect(refused.every((error) => error.status === 429)).toBe(true)
    // Every request held what it cost: at most the one admitted alone on the remainder overshoots.
    expect(spent).toBeGreaterThan(limit - largest)
    expect(spent - limit).toBeLessThanOrEqual(largest)
    // The 50 % threshold was crossed once, on one instance only.
    expect(alerts).toHaveLength(1)
    expect(alerts[0]).toMatchObject({
      keyId: 'shared',
      per: 'day',
      limitUsd: 0.5,
      alertAtUsd: 0.25,
    })
    expect(alerts[0]!.spentUsd).toBeGreaterThanOrEqual(0.25)
    // Spent: both instances refuse, with the budget's own code and no retry.
    for (const client of clients) {
      const error = await client.chat.completions
        .create({ model: 'gpt-test', messages: hello, max_tokens: 20 })
        .catch((failure: unknown) => failure)
      expect(error).toMatchObject({ status: 429, code: 'budget_exceeded' })
    }
  })

  it('is restored from the Postgres ledger after a restart that lost Redis, and after one without Redis', async () => {
    const database = await createTestDatabase('shared_budget')
    cleanups.push(() => database.drop())
    const redis = await connectRedis()
    cleanups.push(async () => redis.destroy())
    const prefix = await uniquePrefix(redis)
    const upstream = gatedUpstreams()
    const budget = { usd: 0.2, per: 'month' as const }
    const start = async (state: GatewayConfig['state']) => {
      const gateway = await createGatewayWithState({
        groups: upstream.groups,
        prices,
        keys: [{ key, id: 'restored', budget }],
        state,
      })
      const served = await serveGateway(gateway, { port: 0 })
      let closing: Promise<void> | undefined
      const close = () => (closing ??= served.close())
      cleanups.push(close)
      return {
        gateway,
        url: served.url,
        close,
        client: new OpenAI({ apiKey: key, baseURL: `${served.url}/v1` }),
      }
    }
    const shared = {
      redis: redisUrl,
      postgres: database.url,
      prefix,
      ledger: { flushIntervalMs: 100 },
    }
    let spent = 0
    const call = async (client: OpenAI) => {
      const answer = await client.chat.completions.create({
        model: 'gpt-test',
        messages: hello,
        max_tokens: 20,
      })
      spent += costOf(answer.usage!)
    }

    // One instance spends part of the month, then stops (its ledger drains as it closes).
    const before = await start(shared)
    for (let request = 0; request < 5; request += 1) await call(before.client)
    await before.close()
    // Redis comes back empty, as one without persistence does after a restart.
    expect(await deletePrefix(redis, prefix)).toBeGreaterThan(0)

    const after = await start(shared)
    // The budget is seeded from the ledger: the month's spend is all there, nothing twice.
    expect((await usageOf(after.url))['budget'][0]).toMatchObject({
      used_usd: spent / 1e9,
      reserved_usd: 0,
    })
    let refusal: unknown
    while (refusal === undefined) {
      await call(after.client).catch((error: unknown) => (refusal = error))
    }
    expect(refusal).toMatchObject({ status: 429, code: 'budget_exceeded' })
    expect(spent).toBeLessThanOrEqual(budget.usd * 1e9 + 20_000_000)
    await vi.waitFor(async () => {
      await after.gateway.state.usageLedger!.flush()
      expect(await after.gateway.state.usageLedger!.spentSince('restored', 0)).toBe(spent)
    }, eventually)

    // A gateway without Redis (the memory meter) starts from the ledger too.
    await after.close()
    const alone = await start({ postgres: database.url, prefix })
    expect((await usageOf(alone.url))['budget'][0]).toMatchObject({ used_usd: spent / 1e9 })
    const error = await alone.client.chat.completions
      .create({ model: 'gpt-test', messages: hello, max_tokens: 20 })
      .catch((failure: unknown) => failure)
    expect(error).toMatchObject({ status: 429, code: 'budget_exceeded' })
  })
})
