import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createGateway, type UsageRecord } from '../../src/index'
import { serveGateway } from '../../src/node/index'
import { createRedisUsageMeter, type RedisScriptClient } from '../../src/redis/index'
import { createSettleRetries } from '../../src/redis/settle-retry'
import type { SettleResult } from '../../src/usage/usage-meter'
import { gatedUpstreams } from '../helpers/limited-gateway'
import {
  connectRedis,
  deletePrefix,
  scriptClient,
  uniquePrefix,
  type TestRedis,
} from '../helpers/redis'
import { inputUsage, recordOf, reserveFor } from '../usage/meter-contract'

let redis: TestRedis
beforeAll(async () => {
  redis = await connectRedis()
})
afterAll(() => redis.destroy())

/**
 * The machine's Redis behind a switch: the next script call may fail before it reaches Redis
 * (a timeout on a dead master) or after Redis ran it (the answer lost on the way back).
 */
function flakyClient(inner: RedisScriptClient) {
  const failures: ('ok' | 'before' | 'after')[] = []
  let calls = 0
  const wrap =
    (call: (a: string, keys: string[], args: string[]) => Promise<unknown>) =>
    async (a: string, keys: string[], args: string[]) => {
      calls += 1
      const failure = failures.shift()
      if (failure === 'before') throw new Error('connect ETIMEDOUT (test)')
      const answer = await call(a, keys, args)
      if (failure === 'after') throw new Error('socket closed before the answer (test)')
      return answer
    }
  return {
    client: {
      eval: wrap((script, keys, args) => inner.eval(script, keys, args)),
      evalsha: wrap((sha, keys, args) => inner.evalsha(sha, keys, args)),
    } satisfies RedisScriptClient,
    failNext: (...how: ('ok' | 'before' | 'after')[]) => void failures.push(...how),
    calls: () => calls,
  }
}

const quietLogger = () => {
  const lines: string[] = []
  return {
    lines,
    logger: { warn: (line: string) => lines.push(line), error: (line: string) => lines.push(line) },
  }
}

describe('settle retries (unit)', () => {
  const clock = () => {
    let at = 0
    return { now: () => at, sleep: async (ms: number) => void (at += ms) }
  }

  it('tries the failed parts again with growing waits until none is left', async () => {
    const { now, sleep } = clock()
    const { lines, logger } = quietLogger()
    const retries = createSettleRetries({ windowMs: 30_000, maxRetrying: 10, logger, now, sleep })
    const seen: { at: number; parts: string[] }[] = []
    const answers = await retries.retry(['a', 'b'], async (parts) => {
      seen.push({ at: now(), parts })
      // 'b' comes back on the third try, 'a' on the second.
      return seen.length === 1
        ? { failed: parts, answers: [] }
        : {
            failed: parts.filter((part) => part === 'b' && seen.length < 3),
            answers: parts.filter((part) => !(part === 'b' && seen.length < 3)),
          }
    })
    expect(seen).toEqual([
      { at: 250, parts: ['a', 'b'] },
      { at: 750, parts: ['a', 'b'] },
      { at: 1750, parts: ['b'] },
    ])
    expect(answers).toEqual(['a', 'b'])
    expect(retries.retrying).toBe(0)
    expect(lines).toEqual([])
  })

  it('gives up at the end of its window, in one log line however many give up at once', async () => {
    const { now, sleep } = clock()
    const { lines, logger } = quietLogger()
    const retries = createSettleRetries({ windowMs: 5_000, maxRetrying: 10, logger, now, sleep })
    let tries = 0
    const answers = await retries.retry(['a'], async (parts) => {
      tries += 1
      return { failed: parts, answers: [] }
    })
    // 250, 500, 1000, 2000 ms waits, then 1,250 ms left: five tries in the 5 s window.
    expect(tries).toBe(5)
    expect(now()).toBe(5_000)
    expect(answers).toEqual([])
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('1 settle(s) could not be counted in Redis within 5000 ms')
    await retries.retry(['b'], async (parts) => ({ failed: parts, answers: [] }))
    expect(lines).toHaveLength(1)
  })

  it('holds at most maxRetrying settles; a window of 0 never retries', async () => {
    const { lines, logger } = quietLogger()
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    const retries = createSettleRetries({
      windowMs: 30_000,
      maxRetrying: 2,
      logger,
      now: Date.now,
      sleep: () => held,
    })
    const attempt = async (parts: string[]) => ({ failed: [] as string[], answers: parts })
    const first = retries.retry(['a'], attempt)
    const second = retries.retry(['b'], attempt)
    expect(retries.retrying).toBe(2)
    expect(retries.retry(['c'], attempt)).toBeUndefined()
    expect(lines).toHaveLength(1)
    release()
    expect(await first).toEqual(['a'])
    expect(await second).toEqual(['b'])
    expect(retries.retrying).toBe(0)
    const never = createSettleRetries({ windowMs: 0, maxRetrying: 10, logger, now: Date.now })
    expect(never.retry(['a'], attempt)).toBeUndefined()
    expect(retries.retry([], attempt)).toBeUndefined()
  })
})

describe('draining (the gateway closing)', () => {
  it('tries every settle being retried once more at once, then gives up; later failures are given up at once', async () => {
    const { lines, logger } = quietLogger()
    // A wait that never ends by itself: only drain() can end it.
    const retries = createSettleRetries({
      windowMs: 30_000,
      maxRetrying: 10,
      logger,
      now: Date.now,
      sleep: () => new Promise<void>(() => undefined),
    })
    let tries = 0
    const attempt = async (parts: string[]) => {
      tries += 1
      return { failed: parts, answers: [] as string[] }
    }
    const pending = retries.retry(['a'], attempt)!
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(tries).toBe(0)
    retries.drain()
    expect(await pending).toEqual([])
    expect(tries).toBe(1)
    expect(retries.retrying).toBe(0)
    expect(retries.retry(['b'], attempt)).toBeUndefined()
    expect(lines).toHaveLength(1)
  })
})

describe('the Redis meter retries a settle Redis did not take', () => {
  const limits = { tokensPerDay: 100_000 }

  const meterOver = (flaky: ReturnType<typeof flakyClient>, prefix: string) => {
    const { lines, logger } = quietLogger()
    const meter = createRedisUsageMeter({
      client: flaky.client,
      prefix,
      timeoutMs: 2_000,
      probeIntervalMs: 50,
      logger,
    })
    return { meter, lines }
  }

  it.each(['before', 'after'] as const)(
    'counts a settle that failed %s reaching Redis exactly once',
    async (when) => {
      const prefix = uniquePrefix('settle-retry')
      const flaky = flakyClient(scriptClient(redis))
      const { meter } = meterOver(flaky, prefix)
      try {
        const reserved = await reserveFor(meter, 'k', limits)
        if (!reserved.granted) throw new Error('not granted')
        flaky.failNext(when)
        const result = (await meter.settle(
          reserved.reservation,
          recordOf(reserved.reservation, inputUsage(120, 30)),
        )) as SettleResult | undefined
        expect(result?.retrying).toBeInstanceOf(Promise)
        await result!.retrying
        const summary = await meter.summary('k', { limits })
        expect(summary).toMatchObject({
          requests: 1,
          inputTokens: 120,
          outputTokens: 30,
          totalTokens: 150,
        })
        expect(summary.reservedTokens).toBe(0)
        // A second settle of the same reservation (a retry racing its own first run) adds nothing.
        await meter.settle(
          reserved.reservation,
          recordOf(reserved.reservation, inputUsage(120, 30)),
        )
        expect((await meter.summary('k', { limits })).totalTokens).toBe(150)
      } finally {
        await deletePrefix(redis, prefix)
      }
    },
  )

  it('keeps trying while Redis stays away, and answers nothing to retry when the first try lands', async () => {
    const prefix = uniquePrefix('settle-retry')
    const flaky = flakyClient(scriptClient(redis))
    const { meter, lines } = meterOver(flaky, prefix)
    try {
      const reserved = await reserveFor(meter, 'k', limits)
      if (!reserved.granted) throw new Error('not granted')
      flaky.failNext('before', 'before', 'before')
      const result = (await meter.settle(
        reserved.reservation,
        recordOf(reserved.reservation, inputUsage(40)),
      )) as SettleResult
      await result.retrying
      // The first try and three retries (two of them failing).
      expect(flaky.calls()).toBe(1 + 4)
      expect((await meter.summary('k', { limits })).totalTokens).toBe(40)
      expect(lines.filter((line) => line.includes('given up'))).toEqual([])
      const again = await reserveFor(meter, 'k', limits)
      if (!again.granted) throw new Error('not granted')
      expect(
        await meter.settle(again.reservation, recordOf(again.reservation, inputUsage(1))),
      ).toBeUndefined()
    } finally {
      await deletePrefix(redis, prefix)
    }
  })

  it('through the gateway: the answer does not wait for the retry, and the ledger row follows it', async () => {
    const prefix = uniquePrefix('settle-retry')
    const flaky = flakyClient(scriptClient(redis))
    const { meter } = meterOver(flaky, prefix)
    const key = 'sk-settle-retry-0123456789abcdefABCD'
    const records: { record: UsageRecord; countedBefore: number }[] = []
    const upstream = gatedUpstreams()
    const served = await serveGateway(
      createGateway({
        groups: upstream.groups,
        keys: [{ key, id: 'retry', limits }],
        usageMeter: meter,
        usageLedger: {
          record: (record) => {
            // What Redis counted when the row is written: the row must come after the settle.
            void Promise.resolve(meter.summary('retry', { limits })).then((summary) =>
              records.push({ record, countedBefore: summary.totalTokens }),
            )
          },
        },
      }),
      { port: 0 },
    )
    try {
      const client = new OpenAI({ apiKey: key, baseURL: `${served.url}/v1` })
      // Hold the call at the upstream (reserved), then fail its settle and the first retry.
      upstream.shut()
      const answer = client.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'Hello' }],
      })
      await vi.waitFor(() => expect(upstream.calls()).toBe(1))
      flaky.failNext('before', 'before')
      const started = Date.now()
      upstream.open()
      const completion = await answer
      // The first settle attempt failed at once; the answer did not wait for the retries (250 +
      // 500 ms at least).
      expect(Date.now() - started).toBeLessThan(700)
      expect(records).toEqual([])
      await vi.waitFor(() => expect(records).toHaveLength(1), { timeout: 10_000, interval: 20 })
      const total = completion.usage!.total_tokens
      expect(records[0]!.countedBefore).toBe(total)
      expect(records[0]!.record.usage?.totalTokens).toBe(total)
      const usage = (await (
        await fetch(`${served.url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { limits: { tokensPerDay: { used: number } } }
      expect(usage.limits.tokensPerDay.used).toBe(total)
    } finally {
      await served.close()
      await deletePrefix(redis, prefix)
    }
  })

  it('a gateway closed while Redis is away stops within a store timeout and writes its ledger row', async () => {
    const prefix = uniquePrefix('settle-retry')
    const flaky = flakyClient(scriptClient(redis))
    const { meter } = meterOver(flaky, prefix)
    const key = 'sk-settle-close-0123456789abcdefABCD'
    const rows: UsageRecord[] = []
    const upstream = gatedUpstreams()
    const served = await serveGateway(
      createGateway({
        groups: upstream.groups,
        keys: [{ key, id: 'closing', limits }],
        usageMeter: meter,
        usageLedger: { record: (record) => void rows.push(record) },
      }),
      { port: 0 },
    )
    try {
      upstream.shut()
      const client = new OpenAI({ apiKey: key, baseURL: `${served.url}/v1` })
      const answer = client.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'Hello' }],
      })
      await vi.waitFor(() => expect(upstream.calls()).toBe(1))
      // Redis away for the settle and for every retry the 30 s window would make.
      flaky.failNext(...Array.from({ length: 20 }, () => 'before' as const))
      upstream.open()
      await answer
      expect(rows).toEqual([])
    } finally {
      const started = Date.now()
      await served.close()
      // Not the 30 s retry window: one more attempt, then the row.
      expect(Date.now() - started).toBeLessThan(5_000)
      await deletePrefix(redis, prefix)
    }
    expect(rows).toHaveLength(1)
    expect(rows[0]!.keyId).toBe('closing')
  })

  it('a JSON cache hit is answered without waiting for the retries of its settle', async () => {
    const prefix = uniquePrefix('settle-retry')
    const flaky = flakyClient(scriptClient(redis))
    const { meter } = meterOver(flaky, prefix)
    const key = 'sk-settle-hit-0123456789abcdefABCDE'
    const rows: UsageRecord[] = []
    const upstream = gatedUpstreams()
    const groups = upstream.groups.map((group) =>
      group.id === 'gpt' ? { ...group, cache: { ttlSeconds: 60 } } : group,
    )
    const served = await serveGateway(
      createGateway({
        groups,
        keys: [{ key, id: 'hits', limits }],
        usageMeter: meter,
        usageLedger: { record: (record) => void rows.push(record) },
      }),
      { port: 0 },
    )
    try {
      const client = new OpenAI({ apiKey: key, baseURL: `${served.url}/v1` })
      const ask = () =>
        client.chat.completions
          .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Hello' }] })
          .withResponse()
      const miss = await ask()
      expect(miss.response.headers.get('x-gateway-cache')).toBe('miss')
      await vi.waitFor(() => expect(rows).toHaveLength(1))
      // The hit's reserve goes through; its settle and first two retries fail (the retries end
      // 1,750 ms after it at the soonest).
      flaky.failNext('ok', 'before', 'before', 'before')
      const started = Date.now()
      const hit = await ask()
      expect(hit.response.headers.get('x-gateway-cache')).toBe('hit')
      expect(Date.now() - started).toBeLessThan(1_200)
      expect(rows).toHaveLength(1)
      await vi.waitFor(() => expect(rows).toHaveLength(2), { timeout: 10_000, interval: 20 })
      expect(rows[1]!.cached).toBe(true)
      expect(upstream.calls()).toBe(1)
    } finally {
      await served.close()
      await deletePrefix(redis, prefix)
    }
  })
})
