import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisCircuitStore } from '../../src/redis/index'
import {
  connectRedis,
  deletePrefix,
  scriptClient,
  uniquePrefix,
  type TestRedis,
} from '../helpers/redis'

let redis: TestRedis
const prefix = uniquePrefix('circuits')
beforeAll(async () => {
  redis = await connectRedis()
})
afterAll(async () => {
  await deletePrefix(redis, prefix)
  redis.destroy()
})

const quiet = { warn: () => undefined, error: () => undefined }

describe('Redis circuit store', () => {
  it('an opening made by one instance is seen by another at its next sync, with the time left by Redis’s clock', async () => {
    const one = createRedisCircuitStore({ client: scriptClient(redis), prefix, logger: quiet })
    const two = createRedisCircuitStore({ client: scriptClient(redis), prefix, logger: quiet })
    const now = Date.now()
    expect(two.openUntil('g/a', now)).toBeUndefined()
    one.open('g/a', 30_000, now)
    // The opener knows at once, without waiting for Redis.
    expect(one.openUntil('g/a', now)).toBe(now + 30_000)
    await one.sync()
    await two.sync()
    const seen = two.openUntil('g/a', Date.now())!
    expect(seen).toBeGreaterThan(now + 29_000)
    expect(seen).toBeLessThanOrEqual(Date.now() + 30_000)
    expect(two.openUntil('g/b', Date.now())).toBeUndefined()
    // The hash expires with its last opening, and carries the prefix.
    const ttl = await redis.pTTL(`${prefix}:circuit:v2:{circuits}`)
    expect(ttl).toBeGreaterThan(29_000)
    expect(ttl).toBeLessThanOrEqual(30_000)
  })

  it('a longer opening wins over a shorter one; a passed opening is dropped', async () => {
    const store = createRedisCircuitStore({
      client: scriptClient(redis),
      prefix: `${prefix}:2`,
      logger: quiet,
    })
    const other = createRedisCircuitStore({
      client: scriptClient(redis),
      prefix: `${prefix}:2`,
      logger: quiet,
    })
    const now = Date.now()
    store.open('g/x', 60_000, now)
    await store.sync()
    other.open('g/x', 50, now)
    await other.sync()
    expect(other.openUntil('g/x', Date.now())).toBeGreaterThan(now + 59_000)
    store.open('g/y', 50, now)
    await store.sync()
    await new Promise((resolve) => setTimeout(resolve, 80))
    await other.sync()
    expect(other.openUntil('g/y', Date.now())).toBeUndefined()
    expect(await redis.hGetAll(`${prefix}:2:circuit:v2:{circuits}`)).toEqual({
      'g/x': expect.stringMatching(/^\d+$/) as unknown as string,
    })
  })

  it('reads the others’ openings at most once per syncIntervalMs, started by a read and not awaited by it', async () => {
    let calls = 0
    const client = scriptClient(redis)
    const counting = {
      eval: (...args: Parameters<typeof client.eval>) => ((calls += 1), client.eval(...args)),
      evalsha: (...args: Parameters<typeof client.evalsha>) => (
        (calls += 1),
        client.evalsha(...args)
      ),
    }
    const store = createRedisCircuitStore({
      client: counting,
      prefix: `${prefix}:3`,
      syncIntervalMs: 60_000,
      logger: quiet,
    })
    for (let index = 0; index < 1_000; index += 1) store.openUntil('g/a', Date.now())
    await store.sync()
    expect(calls).toBeLessThanOrEqual(3)
  })

  it('while Redis does not answer, it says so once, keeps its own openings and never throws', async () => {
    const lines: string[] = []
    const store = createRedisCircuitStore({
      client: {
        eval: () => Promise.reject(new Error('connection refused')),
        evalsha: () => Promise.reject(new Error('connection refused')),
      },
      prefix: `${prefix}:4`,
      logger: { warn: (line) => lines.push(line), error: (line) => lines.push(line) },
    })
    const now = Date.now()
    store.open('g/a', 10_000, now)
    await store.sync()
    await store.sync()
    expect(store.openUntil('g/a', now + 1)).toBe(now + 10_000)
    expect(lines).toEqual([
      '[model-gateway] Redis circuit store is not answering (connection refused). Each instance opens and closes circuits on its own failures alone until it answers again.',
    ])
  })
})
