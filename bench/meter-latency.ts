import { createClient } from 'redis'
import { createGateway, createMemoryUsageMeter, type UsageMeter } from '../src/index'
import type { UsageCost } from '../src/extend'
import {
  createRedisUsageMeter,
  defineRedisScript,
  type RedisScriptClient,
} from '../src/redis/index'
import type { KeyLimits } from '../src/usage/key-limits'

/** Latency of one measured operation, in microseconds, over many runs. */
export type MeterLatency = {
  meter: string
  operation: string
  runs: number
  p50: number
  p99: number
  mean: number
  /** Operations per second with `concurrency` callers (1: one at a time). */
  perSecond: number
  concurrency: number
}

const allLimits: KeyLimits = {
  requestsPerMinute: 1e9,
  inputTokensPerMinute: 1e9,
  outputTokensPerMinute: 1e9,
  concurrency: 1e6,
  tokensPerDay: 1e12,
  tokensPerMonth: 1e12,
}
/** Money budgets of every period, as a key with `keys[].budget` has them. */
const allBudgets = [
  { usd: 1e6, per: 'day' as const, alertAt: 0.9 },
  { usd: 1e6, per: 'month' as const },
  { usd: 1e6, per: 'lifetime' as const },
]
const benchKey = 'sk-bench-meter-0123456789abcdefABCDEF'
const usage = {
  inputTokens: 120,
  outputTokens: 40,
  cachedInputTokens: 0,
  cacheWriteInputTokens: 0,
  cacheWrite1hInputTokens: 0,
  reasoningTokens: 0,
  totalTokens: 160,
}

/**
 * What the usage meter adds to a request, in process (no sockets but Redis's):
 * - `reserve` (on the request path, before the upstream call) and `reserve + settle` (settle runs
 *   after the answer, off the path), one at a time and with 64 callers at once;
 * - a whole gateway request (built-in mock upstream, no sockets) with the memory meter and with
 *   the Redis meter, one at a time: the difference is the meter's added latency per request.
 * Every key has all six limits plus a quota, so every script checks everything; the rows marked
 * "money budgets too" add a day, a month and a lifetime money budget (and, for the gateway, a
 * priced model), checked in the same scripts.
 */
export async function measureMeterLatency(redisUrl: string, runs = 3000): Promise<MeterLatency[]> {
  const redis = createClient({ url: redisUrl, disableOfflineQueue: true })
  redis.on('error', () => undefined)
  await redis.connect()
  const prefix = `mgbench:${process.pid}:${Date.now()}`
  const client: RedisScriptClient = {
    eval: (script, keys, args) => redis.eval(script, { keys, arguments: args }),
    evalsha: (sha, keys, args) => redis.evalSha(sha, { keys, arguments: args }),
  }
  const meters: [string, UsageMeter][] = [
    ['memory', createMemoryUsageMeter()],
    [
      'redis',
      createRedisUsageMeter({
        prefix,
        timeoutMs: 5000,
        client,
      }),
    ],
  ]
  const results: MeterLatency[] = []
  try {
    // The floor: one EVALSHA round trip that does nothing but read the clock.
    const floor = defineRedisScript("return redis.call('TIME')")
    const roundTrip = () => floor.run(client, [], [])
    await time(roundTrip, 500, 1)
    results.push({
      meter: 'redis',
      operation: 'EVALSHA round trip (TIME only)',
      ...(await time(roundTrip, runs, 1)),
    })
    for (const [name, meter] of meters) {
      let request = 0
      let money = false
      const reserve = async () => {
        request += 1
        const result = await meter.reserve({
          requestId: `bench_${request}`,
          keyId: `bench-${money ? 'money-' : ''}${request % 8}`,
          quotaTokens: 1e12,
          limits: allLimits,
          ...(money ? { budgets: allBudgets } : {}),
          estimatedTokens: 1160,
          estimate: {
            inputTokens: 160,
            outputTokens: 1000,
            ...(money ? { costNano: 624_000 } : {}),
          },
        })
        if (!result.granted) throw new Error(`The ${name} meter refused a bench request.`)
        return result.reservation
      }
      const cycle = async () => {
        const reservation = await reserve()
        await meter.settle(reservation, {
          ...(money ? { cost: benchCost } : {}),
          requestId: reservation.id,
          keyId: reservation.keyId,
          groupId: 'g',
          providerId: 'p',
          model: 'm',
          upstreamModel: 'm',
          route: 'chat.completions',
          stream: false,
          usage,
          outcome: 'ok',
          status: 200,
          startedAt: 0,
          durationMs: 1,
        })
      }
      await time(cycle, 500, 1)
      results.push({ meter: name, operation: 'reserve', ...(await time(reserve, runs, 1)) })
      results.push({ meter: name, operation: 'reserve + settle', ...(await time(cycle, runs, 1)) })
      results.push({
        meter: name,
        operation: 'reserve + settle',
        ...(await time(cycle, runs * 4, 64)),
      })
      money = true
      await time(cycle, 500, 1)
      results.push({
        meter: name,
        operation: 'reserve + settle, money budgets too',
        ...(await time(cycle, runs, 1)),
      })
    }
    for (const [name, meter, money] of [
      ...meters.map(([name, meter]) => [name, meter, false] as const),
      ...meters.map(([name, meter]) => [name, meter, true] as const),
    ]) {
      const gateway = createGateway({
        groups: [
          {
            id: 'demo',
            protocol: 'openai',
            // A priced upstream model, so that a request with budgets is priced and held.
            models: [{ name: 'demo', upstreamModel: 'gpt-4o-mini' }],
            upstreams: [{ provider: 'mock' }],
          },
        ],
        keys: [
          {
            key: benchKey,
            limits: allLimits,
            quota: { tokens: 1e12 },
            ...(money ? { budget: allBudgets } : {}),
          },
        ],
        usageMeter: meter,
      })
      const body = JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'Hello' }] })
      const call = async () => {
        const response = await gateway(
          new Request('http://bench.test/v1/chat/completions', {
            method: 'POST',
            headers: { authorization: `Bearer ${benchKey}`, 'content-type': 'application/json' },
            body,
          }),
        )
        if (response.status !== 200) throw new Error(`The gateway answered ${response.status}.`)
        await response.arrayBuffer()
      }
      await time(call, 1000, 1)
      results.push({
        meter: name,
        operation: `gateway request (mock upstream)${money ? ', money budgets too' : ''}`,
        ...(await time(call, runs, 1)),
      })
    }
  } finally {
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) {
      if (keys.length > 0) await redis.del(keys)
    }
    redis.destroy()
  }
  return results
}

const benchCost: UsageCost = {
  nanoUsd: 42_000,
  listNanoUsd: 42_000,
  price: {
    model: 'gpt-4o-mini',
    input: 0.15,
    output: 0.6,
    cachedInput: 0.075,
    cacheWrite: 0.15,
    cacheWrite1h: 0.15,
    multiplier: 1,
    source: 'bench',
  },
}

/** Runs `work` `runs` times with `concurrency` callers; latency percentiles in µs. */
async function time(work: () => Promise<unknown>, runs: number, concurrency: number) {
  const latencies: number[] = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < runs) {
        next += 1
        const begin = performance.now()
        await work()
        latencies.push((performance.now() - begin) * 1000)
      }
    }),
  )
  const elapsedS = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const at = (share: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))]!
  return {
    runs,
    concurrency,
    p50: at(0.5),
    p99: at(0.99),
    mean: latencies.reduce((sum, value) => sum + value, 0) / latencies.length,
    perSecond: runs / elapsedS,
  }
}
