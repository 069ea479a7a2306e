import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createRedisUsageMeter,
  defineRedisScript,
  type RedisScriptClient,
} from '../../src/redis/index'
import { usagePrelude } from '../../src/redis/lua/usage-prelude'
import { budgetPeriod } from '../../src/usage/key-limits'
import {
  connectRedis,
  deletePrefix,
  scriptClient,
  uniquePrefix,
  type TestRedis,
} from '../helpers/redis'
import { describeMeterContract, inputUsage, recordOf, reserveFor } from '../usage/meter-contract'

let redis: TestRedis
beforeAll(async () => {
  redis = await connectRedis()
})
afterAll(() => redis.destroy())

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

describeMeterContract('redis', async () => {
  const prefix = uniquePrefix('contract')
  const leaseMs = 400
  const meter = createRedisUsageMeter({
    client: scriptClient(redis),
    prefix,
    leaseMs,
    timeoutMs: 2000,
  })
  return {
    meter,
    leaseMs,
    elapse: sleep,
    close: async () => void (await deletePrefix(redis, prefix)),
  }
})

describe('redis usage meter', () => {
  it('keeps every key of an API key under one hash tag, with the layout version in the prefix', async () => {
    const prefix = uniquePrefix('slots')
    const meter = createRedisUsageMeter({ client: scriptClient(redis), prefix })
    const limits = {
      requestsPerMinute: 5,
      inputTokensPerMinute: 500,
      outputTokensPerMinute: 500,
      concurrency: 2,
      tokensPerDay: 9000,
      tokensPerMonth: 9000,
    }
    const result = await reserveFor(
      meter,
      'tenant{a}%',
      limits,
      { inputTokens: 10, outputTokens: 10 },
      9000,
    )
    if (!result.granted) throw new Error('expected a grant')
    await meter.settle(result.reservation, recordOf(result.reservation, inputUsage(5, 5)))
    const keys: string[] = []
    for await (const batch of redis.scanIterator({ MATCH: `${prefix}:*` }))
      keys.push(...(Array.isArray(batch) ? batch : [batch]))
    expect(keys.length).toBeGreaterThanOrEqual(6)
    for (const key of keys) {
      expect(key.startsWith(`${prefix}:usage:v1:{k:tenant%7Ba%7D%25}:`)).toBe(true)
      // Redis Cluster hashes the text between the first `{` and the next `}`.
      const tag = key.slice(key.indexOf('{') + 1, key.indexOf('}', key.indexOf('{')))
      expect(tag).toBe('k:tenant%7Ba%7D%25')
    }
    await deletePrefix(redis, prefix)
  })

  it('loads its scripts with EVAL when the server answers NOSCRIPT, then runs them by SHA-1', async () => {
    const calls: string[] = []
    const client = scriptClient(redis)
    const counting: RedisScriptClient = {
      eval: (script, keys, args) => (calls.push('eval'), client.eval(script, keys, args)),
      evalsha: (sha, keys, args) => (calls.push('evalsha'), client.evalsha(sha, keys, args)),
    }
    // A script no server has seen yet: the first EVALSHA must miss.
    const script = defineRedisScript(`-- ${crypto.randomUUID()}\nreturn ARGV[1] + 1`)
    expect(await script.run(counting, [], ['41'])).toBe(42)
    expect(await script.run(counting, [], ['1'])).toBe(2)
    expect(calls).toEqual(['evalsha', 'eval', 'evalsha'])
  })

  it('computes the same UTC day and month periods in Lua as in TypeScript', async () => {
    const probe = defineRedisScript(
      `${usagePrelude}\nlocal d, de = period(1, tonumber(ARGV[21]))\nlocal m, me = period(2, tonumber(ARGV[21]))\nreturn { d, de, m, me }`,
    )
    const instants: number[] = []
    for (let year = 1999; year <= 2101; year += 1) {
      for (let month = 0; month < 12; month += 1) {
        const start = Date.UTC(year, month, 1)
        instants.push(start, start - 1, start + 43_200_000)
      }
    }
    const args = (at: number) => [
      '0',
      '0',
      '0',
      '0',
      '-1',
      '-1',
      '-1',
      '0',
      '1',
      '1',
      '',
      '0',
      '0',
      // No money budgets, no estimated cost, no alerts (ARGV 14–20).
      '-1',
      '-1',
      '-1',
      '0',
      '-1',
      '-1',
      '-1',
      String(at),
    ]
    for (const at of instants) {
      const reply = (await probe.run(
        scriptClient(redis),
        ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'],
        args(at),
      )) as number[]
      const day = budgetPeriod('day', at)
      const month = budgetPeriod('month', at)
      expect(reply.map(Number), new Date(at).toISOString()).toEqual([
        day.id,
        day.endMs,
        month.id,
        month.endMs,
      ])
    }
  })

  it('decides by the Redis clock: instances with clocks 5 minutes apart share one window and one day', async () => {
    const prefix = uniquePrefix('skew')
    const ahead = createRedisUsageMeter({
      client: scriptClient(redis),
      prefix,
      now: () => Date.now() + 300_000,
    })
    const behind = createRedisUsageMeter({
      client: scriptClient(redis),
      prefix,
      now: () => Date.now() - 300_000,
    })
    const limits = { requestsPerMinute: 8, tokensPerDay: 100_000 }
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        reserveFor(index % 2 === 0 ? ahead : behind, 'skewed', limits),
      ),
    )
    expect(results.filter((result) => result.granted)).toHaveLength(8)
    const fromAhead = await ahead.summary('skewed', { limits })
    const fromBehind = await behind.summary('skewed', { limits })
    expect(fromAhead.limits?.[1]).toMatchObject({ reserved: 800 })
    expect(fromBehind.limits?.[1]).toMatchObject({ reserved: 800 })
    // Both report the same reset of the same UTC day, whatever their own clocks say.
    expect(
      Math.abs(fromAhead.limits![1]!.resetInMs! - fromBehind.limits![1]!.resetInMs!),
    ).toBeLessThan(2000)
    await deletePrefix(redis, prefix)
  })

  it('grants a retried reserve of the same reservation once, holding nothing twice', async () => {
    const prefix = uniquePrefix('retry')
    const client = scriptClient(redis)
    const meter = createRedisUsageMeter({ client, prefix })
    const settings = { limits: { concurrency: 5, tokensPerDay: 1000 } }
    const result = await reserveFor(meter, 'retry', settings.limits)
    if (!result.granted) throw new Error('expected a grant')
    // Run the reserve script again for the same id, as a retry after a timeout would.
    const summaryBefore = await meter.summary('retry', settings)
    const { usageScripts } = await import('../../src/redis/lua/usage-scripts')
    const { usageKeys } = await import('../../src/redis/usage-keys')
    const { scriptArgs } = await import('../../src/redis/usage-replies')
    const { keySubject } = await import('../../src/usage/metered-subjects')
    const reply = (await usageScripts.reserve.run(
      client,
      usageKeys(prefix, 'retry'),
      scriptArgs({
        subjects: [keySubject('retry', settings)],
        reseed: false,
        leaseMs: 60_000,
        doneTtlMs: 600_000,
        reservationId: result.reservation.id,
        estimate: { inputTokens: 100, outputTokens: 0 },
      }),
    )) as number[]
    expect(Number(reply[0])).toBe(1)
    const after = await meter.summary('retry', settings)
    expect(after).toMatchObject({ reservedTokens: 100 })
    expect(after.limits?.map(({ resetInMs: _, ...state }) => state)).toEqual(
      summaryBefore.limits?.map(({ resetInMs: _, ...state }) => state),
    )
    await deletePrefix(redis, prefix)
  })
})
