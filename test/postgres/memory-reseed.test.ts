import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGatewayWithState, serveGateway, type ServedGateway } from '../../src/node/index'
import { gatedUpstreams } from '../helpers/limited-gateway'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'

/**
 * `state.postgres` without `state.redis`: the meter is the process's own, and its budgets start
 * from the ledger, so that restarting the gateway does not give a key back what it spent.
 */
const keys = {
  day: 'sk-mem-reseed-day-0123456789abcdefABCD',
  lifetime: 'sk-mem-reseed-life-0123456789abcdefABC',
  open: 'sk-mem-reseed-open-0123456789abcdefABC',
}
const hello = [{ role: 'user' as const, content: 'Hello there, how are you today?' }]

let database: TestDatabase
const prefix = `mr_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
const upstream = gatedUpstreams()
beforeAll(async () => {
  database = await createTestDatabase('memory_reseed')
})
afterAll(async () => {
  await database.drop()
})

/** One gateway process's worth: the state the CLI would connect, served over HTTP. */
async function start(): Promise<{ served: ServedGateway; url: string }> {
  const gateway = await createGatewayWithState({
    groups: upstream.groups,
    keys: [
      { key: keys.day, id: 'day', limits: { tokensPerDay: 300, tokensPerMonth: 100_000 } },
      { key: keys.lifetime, id: 'lifetime', quota: { tokens: 250 } },
      { key: keys.open, id: 'open' },
    ],
    state: { postgres: database.url, prefix, ledger: { flushIntervalMs: 50 } },
  })
  const served = await serveGateway(gateway, { port: 0 })
  return { served, url: served.url }
}

const client = (url: string, key: string) =>
  new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })

/** Calls one at a time until the key is refused; returns the tokens the answers reported. */
async function spendAll(url: string, key: string): Promise<{ used: number; refusal: unknown }> {
  let used = 0
  for (let call = 0; call < 100; call += 1) {
    try {
      const answer = await client(url, key).chat.completions.create({
        model: 'gpt-test',
        messages: hello,
      })
      used += answer.usage!.total_tokens
    } catch (refusal) {
      return { used, refusal }
    }
  }
  throw new Error('the key was never refused')
}

async function usageOf(url: string, key: string) {
  const response = await fetch(`${url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } })
  expect(response.status).toBe(200)
  return (await response.json()) as Record<string, any>
}

describe('state.postgres without state.redis', { timeout: 60_000 }, () => {
  it('seeds day, month and lifetime budgets from the ledger: a restarted gateway keeps them spent', async () => {
    const first = await start()
    const day = await spendAll(first.url, keys.day)
    expect(day.refusal).toMatchObject({ status: 429, code: 'insufficient_quota' })
    expect(day.used).toBeGreaterThanOrEqual(300)
    const lifetime = await spendAll(first.url, keys.lifetime)
    expect(lifetime.refusal).toMatchObject({ status: 429, code: 'insufficient_quota' })
    await client(first.url, keys.open).chat.completions.create({
      model: 'gpt-test',
      messages: hello,
    })
    // SIGTERM: the ledger is drained into Postgres, and the process's memory is gone.
    await first.served.close()

    const callsBefore = upstream.calls()
    const second = await start()
    try {
      // The first request of each key finds its budgets spent, without an upstream call.
      const again = await client(second.url, keys.day)
        .chat.completions.create({ model: 'gpt-test', messages: hello })
        .catch((caught: unknown) => caught)
      expect(again).toMatchObject({ status: 429, code: 'insufficient_quota' })
      expect((again as Error).message).toContain('daily token budget (tokensPerDay: 300)')
      const quota = await client(second.url, keys.lifetime)
        .chat.completions.create({ model: 'gpt-test', messages: hello })
        .catch((caught: unknown) => caught)
      expect(quota).toMatchObject({ status: 429, code: 'insufficient_quota' })
      expect(upstream.calls()).toBe(callsBefore)

      const dayUsage = await usageOf(second.url, keys.day)
      expect(dayUsage['limits']['tokensPerDay']).toMatchObject({
        limit: 300,
        used: day.used,
        reserved: 0,
        remaining: 0,
      })
      expect(dayUsage['limits']['tokensPerMonth']).toMatchObject({
        used: day.used,
        remaining: 100_000 - day.used,
      })
      const lifetimeUsage = await usageOf(second.url, keys.lifetime)
      expect(lifetimeUsage['quota']).toMatchObject({
        limit: 250,
        used: lifetime.used,
        remaining: 0,
      })
      // A key without budgets costs no seed and is served as before.
      const open = await client(second.url, keys.open).chat.completions.create({
        model: 'gpt-test',
        messages: hello,
      })
      expect(open.usage!.total_tokens).toBeGreaterThan(0)
    } finally {
      await second.served.close()
    }
  })

  it('continues a budget that was not spent where the last process left it', async () => {
    // Same database, a fresh key: half of a 2,000-token day spent before a restart.
    const key = 'sk-mem-reseed-half-0123456789abcdefABC'
    const gateway = async () => {
      const built = await createGatewayWithState({
        groups: upstream.groups,
        keys: [{ key, id: 'half', limits: { tokensPerDay: 2000 } }],
        state: { postgres: database.url, prefix, ledger: { flushIntervalMs: 50 } },
      })
      return serveGateway(built, { port: 0 })
    }
    const first = await gateway()
    let before = 0
    let requests = 0
    while (before < 1000) {
      const answer = await client(first.url, key).chat.completions.create({
        model: 'gpt-test',
        messages: hello,
      })
      before += answer.usage!.total_tokens
      requests += 1
    }
    await first.close()
    const second = await gateway()
    try {
      const usage = await usageOf(second.url, key)
      expect(usage['limits']['tokensPerDay']).toMatchObject({
        used: before,
        remaining: 2000 - before,
      })
      // With a Postgres ledger, GET /v1/usage also shows the key's last 30 UTC days.
      expect(usage['daily']).toEqual([
        {
          date: new Date().toISOString().slice(0, 10),
          requests,
          input_tokens: expect.any(Number),
          output_tokens: expect.any(Number),
          cached_input_tokens: 0,
          total_tokens: before,
          // The model of this test has no price: its requests are unpriced, never free.
          cost_usd: 0,
          unpriced_requests: requests,
          cache_hits: 0,
          saved_usd: 0,
        },
      ])
      const after = await spendAll(second.url, key)
      expect(after.refusal).toMatchObject({ status: 429, code: 'insufficient_quota' })
      // Across both processes the day admitted about 2,000 tokens, not 1,000 + 2,000.
      const largest = 60
      expect(before + after.used).toBeGreaterThanOrEqual(2000)
      expect(before + after.used).toBeLessThanOrEqual(2000 + largest)
    } finally {
      await second.close()
    }
  })
})
