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
