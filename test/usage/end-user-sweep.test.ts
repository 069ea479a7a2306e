import { describe, expect, it } from 'vitest'
import { createMemoryUsageMeter, endUserSweepMs } from '../../src/usage/memory-usage-meter'
import type { ReseedFunction } from '../../src/usage/budget-seeds'
import type { KeyLimits, MoneyBudget } from '../../src/auth/key-store'
import type { MeteredSubjectRef, ReserveResult, UsageMeter } from '../../src/usage/usage-meter'
import { inputUsage, recordOf } from './meter-contract'

/**
 * The memory meter forgets end users at rest (issue 33): a shared key's customers come and go
 * without bound, and each one it ever saw would otherwise stay in memory. Forgetting must never
 * give back a limit: an end user with a window still refilling, a request in flight, or spend in a
 * budget's current period stays. What is forgotten shows in `summary`: the end user's totals
 * start again from nothing (GET /v1/usage never shows an end user's totals; the ledger keeps them).
 */
const keyId = 'shared'
const start = Date.UTC(2026, 10, 23, 12, 0, 0)

function fakeClockMeter(options: { reseed?: ReseedFunction; leaseMs?: number } = {}) {
  let now = start
  const meter = createMemoryUsageMeter({ now: () => now, ...options })
  return { meter, elapse: (ms: number) => void (now += ms), set: (at: number) => void (now = at) }
}

type PerUser = { limits?: KeyLimits; budgets?: MoneyBudget[] }

function reserveAs(
  meter: UsageMeter,
  user: string,
  perUser: PerUser,
  costNano = 0,
): ReserveResult | Promise<ReserveResult> {
  return meter.reserve({
    requestId: `req-${user}-${Math.random()}`,
    keyId,
    quotaTokens: undefined,
    limits: undefined,
    subjects: [{ kind: 'end-user', id: user, keyId, ...perUser }],
    estimatedTokens: 10,
    estimate: { inputTokens: 10, outputTokens: 0, costNano },
  })
}

async function serve(meter: UsageMeter, user: string, perUser: PerUser, costNano = 0) {
  const result = await reserveAs(meter, user, perUser, costNano)
  if (!result.granted) throw new Error(`${user} was refused`)
  const record = recordOf(result.reservation, inputUsage(10))
  await meter.settle(result.reservation, { ...record, cost: { nanoUsd: costNano } as never })
  return result
}

const ref = (user: string): MeteredSubjectRef => ({ kind: 'end-user', id: user, keyId })
const requestsOf = async (meter: UsageMeter, user: string) =>
  (await meter.summary(ref(user))).requests

describe('the memory meter forgets end users at rest', () => {
  it('drops end users whose window has refilled, and keeps one whose window has not', async () => {
    const { meter, elapse } = fakeClockMeter()
    const perUser = { limits: { requestsPerMinute: 1 } }
    for (let index = 0; index < 1000; index += 1) await serve(meter, `user-${index}`, perUser)
    expect(await requestsOf(meter, 'user-0')).toBe(1)
    expect(await requestsOf(meter, 'user-999')).toBe(1)
    elapse(endUserSweepMs / 2)
    await serve(meter, 'recent', perUser)

    // A minute after the first requests their buckets are full again: the next reserve sweeps
    // them away. `recent`'s is half full: it stays, and its window still refuses it.
    elapse(endUserSweepMs / 2)
    expect(await reserveAs(meter, 'recent', perUser)).toMatchObject({
      granted: false,
      refusal: { name: 'requestsPerMinute' },
    })
    expect(await requestsOf(meter, 'user-0')).toBe(0)
    expect(await requestsOf(meter, 'user-999')).toBe(0)
    expect(await requestsOf(meter, 'recent')).toBe(1)

    // The sweep runs once a minute, not on every reserve.
    elapse(endUserSweepMs - 1)
    await serve(meter, 'other', perUser)
    expect(await requestsOf(meter, 'recent')).toBe(1)
    elapse(1)
    await serve(meter, 'someone', perUser)
    expect(await requestsOf(meter, 'recent')).toBe(0)
    expect(await requestsOf(meter, 'other')).toBe(1)
  })

  it('keeps an end user with a request in flight, or spend in a budget period, until it ends', async () => {
    const { meter, elapse, set } = fakeClockMeter({ leaseMs: 10 * endUserSweepMs })
    const daily = { budgets: [{ usd: 1, per: 'day' as const }] }
    const lifetime = { budgets: [{ usd: 1, per: 'lifetime' as const }] }
    const windowOnly = { limits: { concurrency: 2 } }
    await serve(meter, 'spender', daily, 1_000_000_000)
    await serve(meter, 'lifer', lifetime, 1_000_000_000)
    const inFlight = await reserveAs(meter, 'waiting', windowOnly)
    expect(inFlight.granted).toBe(true)

    elapse(2 * endUserSweepMs)
    await serve(meter, 'trigger', windowOnly)
    expect(await requestsOf(meter, 'spender')).toBe(1)
    expect(await requestsOf(meter, 'lifer')).toBe(1)
    expect(await requestsOf(meter, 'waiting')).toBe(0) // never settled, so never counted
    expect((await meter.summary(ref('waiting'), windowOnly)).reservedTokens).toBe(10)
    // The day's spend still counts: its $1 is spent.
    expect(await reserveAs(meter, 'spender', daily, 1)).toMatchObject({
      granted: false,
      reason: 'budget_exceeded',
    })

    // The next day the daily budget is back to nothing: the spender goes, the lifetime one stays.
    set(Date.UTC(2026, 10, 24, 0, 5, 0))
    await serve(meter, 'trigger', windowOnly)
    expect(await requestsOf(meter, 'spender')).toBe(0)
    expect(await requestsOf(meter, 'lifer')).toBe(1)
    expect(await reserveAs(meter, 'lifer', lifetime, 1)).toMatchObject({
      granted: false,
      reason: 'budget_exceeded',
    })
    // The lease of the request in flight expired long ago: nothing holds `waiting` any more.
    expect(await requestsOf(meter, 'waiting')).toBe(0)
    expect((await meter.summary(ref('waiting'), windowOnly)).reservedTokens).toBe(0)
  })

  it('asks reseed again for an end user it forgot, and keeps no state for one only asked about', async () => {
    const asked: string[] = []
    const ledger = new Map<string, number>()
    const reseed: ReseedFunction = async (id) => {
      asked.push(id)
      return ledger.get(id) ?? 0
    }
    const { meter, elapse } = fakeClockMeter({ reseed })
    const daily = { budgets: [{ usd: 1, per: 'day' as const }] }
    // Served at no cost: nothing spent today, so it may be forgotten.
    await serve(meter, 'returning', { limits: { requestsPerMinute: 10 } })
    await serve(meter, 'free', daily)
    expect(asked).toEqual(['free'])
    // Asking about an end user (GET /v1/usage with x-gateway-user) seeds its budget.
    expect((await meter.summary(ref('curious'), daily)).requests).toBe(0)
    expect(asked).toEqual(['free', 'curious'])

    elapse(2 * endUserSweepMs)
    await serve(meter, 'trigger', { limits: { requestsPerMinute: 10 } })
    expect(await requestsOf(meter, 'free')).toBe(0)
    // Back after being forgotten: its budget is seeded again, from what the ledger says now (an
    // instance elsewhere spent its dollar meanwhile).
    ledger.set('free', 1_000_000_000)
    expect(await reserveAs(meter, 'free', daily, 1)).toMatchObject({
      granted: false,
      reason: 'budget_exceeded',
    })
    expect(asked).toEqual(['free', 'curious', 'free'])
    // `curious` was forgotten too: asking again seeds again.
    await meter.summary(ref('curious'), daily)
    expect(asked).toEqual(['free', 'curious', 'free', 'curious'])
  })
})
