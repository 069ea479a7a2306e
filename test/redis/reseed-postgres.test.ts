import OpenAI from 'openai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createGatewayWithState, serveGateway } from '../../src/node/index'
import { gatedUpstreams } from '../helpers/limited-gateway'
import { createTestDatabase } from '../helpers/postgres'
import { connectRedis, deletePrefix, redisUrl } from '../helpers/redis'

const key = 'sk-reseed-pg-0123456789abcdefABCDEF'
const hello = [{ role: 'user' as const, content: 'Hello' }]
const eventually = { timeout: 15_000, interval: 25 }
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('state.redis with state.postgres', () => {
  it('re-seeds budgets from the Postgres ledger after a Redis flush mid-load, counting every request once', async () => {
    const database = await createTestDatabase('reseed')
    cleanups.push(() => database.drop())
    const redis = await connectRedis()
    // A prefix the config accepts, this test's alone (Redis keys and Postgres tables).
    const prefix = `rs_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
    cleanups.push(async () => {
      await deletePrefix(redis, prefix)
      redis.destroy()
    })
    const upstream = gatedUpstreams()
    const gateway = await createGatewayWithState({
      groups: upstream.groups,
      keys: [
        { key, id: 'budget', quota: { tokens: 10_000_000 }, limits: { tokensPerDay: 1_000_000 } },
      ],
      state: { redis: redisUrl, postgres: database.url, prefix, ledger: { flushIntervalMs: 100 } },
    })
    const served = await serveGateway(gateway, { port: 0 })
    cleanups.push(async () => {
      upstream.open()
      await served.close()
    })
    const ledger = gateway.state.usageLedger!
    const client = new OpenAI({ apiKey: key, baseURL: `${served.url}/v1`, maxRetries: 0 })
    const used: number[] = []
    const call = async () => {
      const answer = await client.chat.completions.create({ model: 'gpt-test', messages: hello })
      used.push(answer.usage!.total_tokens)
    }
    const handedToLedger = (count: number) =>
      vi.waitFor(() => {
        const stats = ledger.stats()
        expect(stats.queued + stats.written).toBe(count)
      }, eventually)

    await Promise.all(Array.from({ length: 20 }, call))
    await handedToLedger(20)
    // Ten requests hold their reservations when Redis loses everything under the prefix.
    upstream.shut()
    const inFlight = Promise.all(Array.from({ length: 10 }, call))
    await vi.waitFor(() => expect(upstream.calls()).toBe(30), eventually)
    expect(await deletePrefix(redis, prefix)).toBeGreaterThan(0)
    upstream.open()
    await inFlight
    await handedToLedger(30)
    // The next requests find the budgets gone and seed them from the ledger.
    await Promise.all(Array.from({ length: 20 }, call))
    await handedToLedger(50)

    const sum = used.reduce((total, tokens) => total + tokens, 0)
    await ledger.flush()
    const dayStart = Math.floor(Date.now() / 86_400_000) * 86_400_000
    expect(await ledger.usedSince('budget', dayStart)).toBe(sum)
    const usage = (await (
      await fetch(`${served.url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as Record<string, any>
    expect(usage['limits']['tokensPerDay']).toMatchObject({ used: sum, reserved: 0 })
    expect(usage['quota']).toMatchObject({ limit: 10_000_000, used: sum, reserved: 0 })
  })
})
