import { describe, expect, it } from 'vitest'
import { createMemoryUsageMeter } from '../../src/usage/memory-usage-meter'
import { describeMeterContract, inputUsage, recordOf, reserveFor } from './meter-contract'

/** A memory meter on a fake clock. */
function fakeClockMeter(start = Date.UTC(2026, 10, 23, 12, 0, 0)) {
  let now = start
  const leaseMs = 5_000
  const meter = createMemoryUsageMeter({ now: () => now, leaseMs })
  return {
    meter,
    leaseMs,
    set: (time: number) => void (now = time),
    elapse: async (ms: number) => void (now += ms),
    close: async () => undefined,
  }
}

describeMeterContract('memory', async () => fakeClockMeter())

describe('memory usage meter limits over time', () => {
  it('refills a per-minute window continuously', async () => {
    const subject = fakeClockMeter()
    const limits = { requestsPerMinute: 6 }
    for (let index = 0; index < 6; index += 1) {
      expect((await reserveFor(subject.meter, 'refill', limits)).granted).toBe(true)
    }
    expect((await reserveFor(subject.meter, 'refill', limits)).granted).toBe(false)
    await subject.elapse(9_999)
    expect((await reserveFor(subject.meter, 'refill', limits)).granted).toBe(false)
    await subject.elapse(1)
    expect((await reserveFor(subject.meter, 'refill', limits)).granted).toBe(true)
  })

  it('starts a daily budget again at UTC midnight and a monthly one on the 1st', async () => {
    const subject = fakeClockMeter(Date.UTC(2026, 10, 30, 23, 59, 0))
    const limits = { tokensPerDay: 100, tokensPerMonth: 150 }
    const first = await reserveFor(subject.meter, 'periods', limits)
    expect(first.granted).toBe(true)
    if (first.granted)
      await subject.meter.settle(first.reservation, recordOf(first.reservation, inputUsage(100)))
    expect(await reserveFor(subject.meter, 'periods', limits)).toMatchObject({
      reason: 'quota_exceeded',
      refusal: { name: 'tokensPerDay', retryAfterMs: 60_000 },
    })
    subject.set(Date.UTC(2026, 11, 1, 0, 0, 0))
    const next = await reserveFor(subject.meter, 'periods', limits)
    expect(next.granted).toBe(true)
    const summary = await subject.meter.summary('periods', { limits })
    expect(summary.limits).toMatchObject([
      { name: 'tokensPerDay', used: 0, reserved: 100, remaining: 0, resetInMs: 86_400_000 },
      { name: 'tokensPerMonth', used: 0, reserved: 100, remaining: 50, resetInMs: 31 * 86_400_000 },
    ])
  })

  it('drops a hold made in an earlier period instead of subtracting it from the new one', async () => {
    const subject = fakeClockMeter(Date.UTC(2026, 0, 1, 23, 59, 59))
    const limits = { tokensPerDay: 1000 }
    const before = await reserveFor(subject.meter, 'midnight', limits)
    await subject.elapse(2_000)
    const after = await reserveFor(subject.meter, 'midnight', limits)
    if (!before.granted || !after.granted) throw new Error('expected both to be admitted')
    await subject.meter.settle(before.reservation, recordOf(before.reservation, inputUsage(30)))
    const summary = await subject.meter.summary('midnight', { limits })
    // The request that ended after midnight counts in the new day; the new request's hold stays.
    expect(summary.limits?.[0]).toMatchObject({ used: 30, reserved: 100 })
  })
})

describe('memory usage meter seeded from a ledger (reseed)', () => {
  const start = Date.UTC(2026, 10, 23, 12, 0, 0)

  it('seeds each budget once, on the key’s first request, with what the period already used', async () => {
    const asked: { keyId: string; kind: string; startMs: number }[] = []
    const used: Record<string, number> = { day: 900, month: 5000, lifetime: 7000 }
    const meter = createMemoryUsageMeter({
      now: () => start,
      reseed: async (keyId, period) => {
        asked.push({ keyId, ...period })
        return used[period.kind]!
      },
    })
    const limits = { tokensPerDay: 1000, tokensPerMonth: 10_000 }
    // Ten requests at once share one seed per budget.
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        reserveFor(meter, 'seeded', limits, { inputTokens: 40, outputTokens: 0 }, 8000),
      ),
    )
    expect(asked).toEqual([
      { keyId: 'seeded', kind: 'day', startMs: Date.UTC(2026, 10, 23), measure: 'tokens' },
      { keyId: 'seeded', kind: 'month', startMs: Date.UTC(2026, 10, 1), measure: 'tokens' },
      { keyId: 'seeded', kind: 'lifetime', startMs: 0, measure: 'tokens' },
    ])
    // 100 tokens left of the day: two requests of 40 fit, the rest wait for them.
    expect(results.filter((result) => result.granted)).toHaveLength(2)
    const summary = await meter.summary('seeded', { limits, quotaTokens: 8000 })
    expect(summary.limits).toMatchObject([
      { name: 'tokensPerDay', used: 900, reserved: 80, remaining: 20 },
      { name: 'tokensPerMonth', used: 5000, reserved: 80 },
      { name: 'quota', used: 7000, reserved: 80 },
    ])
    await reserveFor(meter, 'seeded', limits)
    expect(asked).toHaveLength(3)
  })

  it('refuses with 503 (unavailable) while the ledger cannot be read, and seeds once it can', async () => {
    let failing = true
    let calls = 0
    const meter = createMemoryUsageMeter({
      now: () => start,
      reseed: async () => {
        calls += 1
        if (failing) throw new Error('connection refused')
        return 100
      },
    })
    const limits = { tokensPerDay: 1000 }
    expect(await reserveFor(meter, 'down', limits)).toEqual({
      granted: false,
      reason: 'unavailable',
      retryAfterSeconds: 1,
    })
    await expect(Promise.resolve(meter.summary('down', { limits }))).rejects.toMatchObject({
      code: 'unavailable',
    })
    // A key without budgets needs no seed.
    expect((await reserveFor(meter, 'no-budget', { requestsPerMinute: 10 })).granted).toBe(true)
    failing = false
    expect((await reserveFor(meter, 'down', limits)).granted).toBe(true)
    expect(calls).toBe(3)
    const state = (await meter.summary('down', { limits })).limits?.[0]
    expect(state).toMatchObject({ used: 100, reserved: 100 })
  })

  it('gives up on a seed that takes longer than reseedTimeoutMs', async () => {
    const meter = createMemoryUsageMeter({
      reseed: () => new Promise<number>(() => undefined),
      reseedTimeoutMs: 50,
    })
    expect(await reserveFor(meter, 'slow', { tokensPerDay: 10 })).toMatchObject({
      granted: false,
      reason: 'unavailable',
    })
  })

  it('counts a seed for a day that ended while it was read as nothing in the new day', async () => {
    let now = Date.UTC(2026, 10, 23, 23, 59, 59, 990)
    const meter = createMemoryUsageMeter({
      now: () => now,
      reseed: async () => {
        now += 20
        return 999
      },
    })
    const limits = { tokensPerDay: 1000 }
    expect((await reserveFor(meter, 'midnight', limits)).granted).toBe(true)
    expect((await meter.summary('midnight', { limits })).limits?.[0]).toMatchObject({
      used: 0,
      reserved: 100,
    })
  })
})
