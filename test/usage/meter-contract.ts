import { describe, expect, it } from 'vitest'
import type { MoneyBudget } from '../../src/auth/key-store'
import type { KeyLimits, KeyLimitSettings } from '../../src/usage/key-limits'
import type { UsageCost } from '../../src/pricing/usage-cost'
import type {
  Reservation,
  ReserveResult,
  TokenUsage,
  UsageMeter,
  UsageRecord,
} from '../../src/usage/usage-meter'

/** A meter under test, and how to let time pass for it. */
export type MeterUnderTest = {
  meter: UsageMeter
  /** Lets `ms` pass on the meter's clock (a fake clock, or real time for Redis). */
  elapse(ms: number): Promise<void>
  /** The meter's lease, short enough for a test to wait out. */
  leaseMs: number
}

/** Sets up a fresh meter (own key space) per test, and tears it down. */
export type MeterFactory = () => Promise<MeterUnderTest & { close(): Promise<void> }>

let requests = 0

/** A reservation request for a key with these limits. */
export function reserveFor(
  meter: UsageMeter,
  keyId: string,
  limits: KeyLimits,
  estimate = { inputTokens: 100, outputTokens: 0 },
  quotaTokens?: number,
): Promise<ReserveResult> {
  requests += 1
  return Promise.resolve(
    meter.reserve({
      requestId: `req_${requests}`,
      keyId,
      limits,
      quotaTokens,
      estimatedTokens: estimate.inputTokens + estimate.outputTokens,
      estimate,
    }),
  )
}

/** A usage record as the gateway settles it. */
export function recordOf(reservation: Reservation, usage: TokenUsage | undefined): UsageRecord {
  return {
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
  }
}

/** `n` tokens of usage, all input. */
export function inputUsage(inputTokens: number, outputTokens = 0): TokenUsage {
  return {
    inputTokens,
    outputTokens,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    cacheWrite1hInputTokens: 0,
    reasoningTokens: 0,
    totalTokens: inputTokens + outputTokens,
  }
}

/** A reservation for a key with money budgets, holding `costNano`. */
function reserveMoney(
  meter: UsageMeter,
  keyId: string,
  budgets: readonly MoneyBudget[],
  costNano: number,
): Promise<ReserveResult> {
  requests += 1
  return Promise.resolve(
    meter.reserve({
      requestId: `req_${requests}`,
      keyId,
      budgets,
      quotaTokens: undefined,
      estimatedTokens: 10,
      estimate: { inputTokens: 10, outputTokens: 0, costNano },
    }),
  )
}

/** A record that cost `nanoUsd` (`null`: an unpriced model). */
function pricedRecord(reservation: Reservation, nanoUsd: number | null): UsageRecord {
  const cost: UsageCost | null =
    nanoUsd === null
      ? null
      : {
          nanoUsd,
          listNanoUsd: nanoUsd,
          price: {
            model: 'm',
            input: 1,
            output: 1,
            cachedInput: 1,
            cacheWrite: 1,
            cacheWrite1h: 1,
            multiplier: 1,
            source: 'test',
          },
        }
  return { ...recordOf(reservation, inputUsage(10)), cost }
}

function granted(results: readonly ReserveResult[]): Reservation[] {
  return results.flatMap((result) => (result.granted ? [result.reservation] : []))
}

async function stateOf(meter: UsageMeter, keyId: string, settings: KeyLimitSettings, name: string) {
  const summary = await meter.summary(keyId, settings)
  return summary.limits?.find((state) => state.name === name)
}

/**
 * The usage meter contract: what every meter (memory, Redis) must do the same way. Each test uses
 * its own key id, so tests never share state.
 */
export function describeMeterContract(name: string, factory: MeterFactory): void {
  const withMeter = (test: (subject: MeterUnderTest) => Promise<void>) => async () => {
    const subject = await factory()
    try {
      await test(subject)
    } finally {
      await subject.close()
    }
  }

  describe(`usage meter contract: ${name}`, () => {
    it(
      'admits exactly requestsPerMinute of 40 concurrent requests, and says when to retry',
      withMeter(async ({ meter }) => {
        const limits = { requestsPerMinute: 5 }
        const results = await Promise.all(
          Array.from({ length: 40 }, () => reserveFor(meter, 'rpm', limits)),
        )
        expect(granted(results)).toHaveLength(5)
        const refused = results.find((result) => !result.granted)
        expect(refused).toMatchObject({
          granted: false,
          reason: 'rate_limited',
          refusal: { name: 'requestsPerMinute', limit: 5 },
        })
        // One request refills every 12 s.
        const wait = refused!.granted ? 0 : refused!.refusal!.retryAfterMs!
        expect(wait).toBeGreaterThan(11_000)
        expect(wait).toBeLessThanOrEqual(12_000)
      }),
    )

    it(
      'admits exactly what inputTokensPerMinute and outputTokensPerMinute hold',
      withMeter(async ({ meter }) => {
        const input = await Promise.all(
          Array.from({ length: 30 }, () =>
            reserveFor(
              meter,
              'itpm',
              { inputTokensPerMinute: 1000 },
              { inputTokens: 100, outputTokens: 0 },
            ),
          ),
        )
        expect(granted(input)).toHaveLength(10)
        const output = await Promise.all(
          Array.from({ length: 30 }, () =>
            reserveFor(
              meter,
              'otpm',
              { outputTokensPerMinute: 600 },
              { inputTokens: 5, outputTokens: 200 },
            ),
          ),
        )
        expect(granted(output)).toHaveLength(3)
        expect(output.find((result) => !result.granted)).toMatchObject({
          refusal: { name: 'outputTokensPerMinute' },
        })
      }),
    )

    it(
      'admits a request larger than a whole window once the window is full',
      withMeter(async ({ meter }) => {
        const first = await reserveFor(
          meter,
          'big',
          { inputTokensPerMinute: 50 },
          { inputTokens: 500, outputTokens: 0 },
        )
        expect(first.granted).toBe(true)
        const second = await reserveFor(
          meter,
          'big',
          { inputTokensPerMinute: 50 },
          { inputTokens: 500, outputTokens: 0 },
        )
        expect(second).toMatchObject({ granted: false, refusal: { name: 'inputTokensPerMinute' } })
      }),
    )

    it(
      'admits exactly `concurrency` requests in flight, and one more when one settles',
      withMeter(async ({ meter }) => {
        const limits = { concurrency: 3 }
        const results = await Promise.all(
          Array.from({ length: 20 }, () => reserveFor(meter, 'conc', limits)),
        )
        const held = granted(results)
        expect(held).toHaveLength(3)
        expect(results.find((result) => !result.granted)).toMatchObject({
          reason: 'rate_limited',
          refusal: { name: 'concurrency', limit: 3 },
        })
        await meter.settle(held[0]!, recordOf(held[0]!, inputUsage(10)))
        const after = await Promise.all(
          Array.from({ length: 5 }, () => reserveFor(meter, 'conc', limits)),
        )
        expect(granted(after)).toHaveLength(1)
      }),
    )

    it(
      'admits exactly a daily budget, then refuses with insufficient quota until UTC midnight',
      withMeter(async ({ meter }) => {
        const limits = { tokensPerDay: 1000 }
        const results = await Promise.all(
          Array.from({ length: 25 }, () => reserveFor(meter, 'day', limits)),
        )
        const held = granted(results)
        expect(held).toHaveLength(10)
        // Not spent yet, only held by the ten in flight: a retry once they end may succeed.
        for (const result of results.filter((result) => !result.granted)) {
          expect(result).toMatchObject({
            reason: 'rate_limited',
            refusal: { name: 'tokensPerDay', inFlight: true, retryAfterMs: 1000 },
          })
        }
        await Promise.all(
          held.map((reservation) =>
            meter.settle(reservation, recordOf(reservation, inputUsage(100))),
          ),
        )
        const refused = await reserveFor(meter, 'day', limits)
        expect(refused).toMatchObject({
          granted: false,
          reason: 'quota_exceeded',
          refusal: { name: 'tokensPerDay', limit: 1000 },
        })
        const day = await stateOf(meter, 'day', { limits }, 'tokensPerDay')
        expect(day).toMatchObject({ used: 1000, reserved: 0, remaining: 0 })
        const wait = refused.granted ? 0 : refused.refusal!.retryAfterMs!
        expect(Math.abs(wait - day!.resetInMs!)).toBeLessThan(5000)
        expect(wait).toBeLessThanOrEqual(86_400_000)
      }),
    )

    it(
      'holds whole estimates; a request that does not fit in the rest waits while others are in flight, then runs alone on it',
      withMeter(async ({ meter }) => {
        const quota = 250
        const estimate = { inputTokens: 100, outputTokens: 0 }
        const settings = { quotaTokens: quota }
        const reserve = () => reserveFor(meter, 'quota', {}, estimate, quota)
        const results = await Promise.all(Array.from({ length: 10 }, reserve))
        // 100 + 100 fit; the last 50 are not enough for a third while two are in flight.
        const [first, second] = granted(results)
        expect(granted(results)).toHaveLength(2)
        expect(results.filter((result) => !result.granted)).toHaveLength(8)
        expect(results.find((result) => !result.granted)).toMatchObject({
          reason: 'rate_limited',
          refusal: { name: 'quota', limit: quota, inFlight: true, retryAfterMs: 1000 },
        })
        expect(await stateOf(meter, 'quota', settings, 'quota')).toMatchObject({
          used: 0,
          reserved: 200,
          remaining: 50,
        })
        await meter.settle(first!, recordOf(first!, inputUsage(100)))
        expect((await reserve()).granted).toBe(false)
        await meter.settle(second!, recordOf(second!, inputUsage(100)))
        // Nothing in flight: one request runs on the remainder, holding all of it.
        const alone = await reserve()
        expect(alone.granted).toBe(true)
        expect(await stateOf(meter, 'quota', settings, 'quota')).toMatchObject({
          used: 200,
          reserved: 50,
          remaining: 0,
        })
        expect(await reserve()).toMatchObject({ reason: 'rate_limited' })
        if (alone.granted)
          await meter.settle(alone.reservation, recordOf(alone.reservation, inputUsage(100)))
        // Spent (by 50 more than it held: the bound), so waiting cannot help.
        expect(await reserve()).toMatchObject({
          reason: 'quota_exceeded',
          refusal: { name: 'quota', retryAfterMs: undefined },
        })
        expect(await stateOf(meter, 'quota', settings, 'quota')).toMatchObject({
          used: 300,
          reserved: 0,
          remaining: 0,
        })
      }),
    )

    it(
      'checks all limits in one step: a refusal by one holds nothing in the others',
      withMeter(async ({ meter }) => {
        const limits = { requestsPerMinute: 10, concurrency: 5, tokensPerDay: 0 }
        const refused = await reserveFor(meter, 'atomic', limits)
        expect(refused).toMatchObject({ granted: false, refusal: { name: 'tokensPerDay' } })
        const summary = await meter.summary('atomic', { limits })
        expect(summary.limits?.find((state) => state.name === 'requestsPerMinute')?.remaining).toBe(
          10,
        )
        expect(summary.limits?.find((state) => state.name === 'concurrency')?.remaining).toBe(5)
      }),
    )

    it(
      'corrects token windows by actual − estimate when a request settles',
      withMeter(async ({ meter }) => {
        const limits = { inputTokensPerMinute: 1000 }
        const result = await reserveFor(meter, 'correct', limits, {
          inputTokens: 900,
          outputTokens: 0,
        })
        expect(result.granted).toBe(true)
        expect(await stateOf(meter, 'correct', { limits }, 'inputTokensPerMinute')).toMatchObject({
          remaining: 100,
        })
        const reservation = granted([result])[0]!
        await meter.settle(reservation, recordOf(reservation, inputUsage(100)))
        const after = await stateOf(meter, 'correct', { limits }, 'inputTokensPerMinute')
        expect(after!.remaining).toBeGreaterThanOrEqual(900)
      }),
    )

    it(
      'refunds windows, concurrency and budgets on release',
      withMeter(async ({ meter }) => {
        const limits = { requestsPerMinute: 1, concurrency: 1, tokensPerDay: 100 }
        const first = granted([await reserveFor(meter, 'release', limits)])[0]!
        expect((await reserveFor(meter, 'release', limits)).granted).toBe(false)
        await meter.release(first)
        const again = await reserveFor(meter, 'release', limits)
        expect(again.granted).toBe(true)
      }),
    )

    it(
      'is idempotent: a double settle counts once, an unknown release and a settle after release do nothing',
      withMeter(async ({ meter }) => {
        const settings = { limits: { tokensPerDay: 10_000 } }
        const first = granted([await reserveFor(meter, 'idem', settings.limits)])[0]!
        await meter.settle(first, recordOf(first, inputUsage(40, 2)))
        await meter.settle(first, recordOf(first, inputUsage(40, 2)))
        await meter.release({ id: 'never-reserved', keyId: 'idem', tokens: 10, settings })
        const second = granted([await reserveFor(meter, 'idem', settings.limits)])[0]!
        await meter.release(second)
        await meter.settle(second, recordOf(second, inputUsage(500)))
        const summary = await meter.summary('idem', settings)
        expect(summary).toMatchObject({
          requests: 1,
          inputTokens: 40,
          outputTokens: 2,
          totalTokens: 42,
          reservedTokens: 0,
        })
        expect(summary.limits?.[0]).toMatchObject({ used: 42, reserved: 0 })
      }),
    )

    it(
      'frees the capacity of a reservation whose lease expired; its late settle counts once',
      withMeter(async ({ meter, elapse, leaseMs }) => {
        const settings = { limits: { concurrency: 1, tokensPerDay: 1000 } }
        const abandoned = granted([await reserveFor(meter, 'lease', settings.limits)])[0]!
        expect(abandoned.leaseMs).toBe(leaseMs)
        expect((await reserveFor(meter, 'lease', settings.limits)).granted).toBe(false)
        await elapse(leaseMs + 50)
        const next = granted([await reserveFor(meter, 'lease', settings.limits)])[0]!
        expect(next).toBeDefined()
        await meter.settle(abandoned, recordOf(abandoned, inputUsage(70)))
        await meter.settle(abandoned, recordOf(abandoned, inputUsage(70)))
        const summary = await meter.summary('lease', settings)
        expect(summary).toMatchObject({ requests: 1, totalTokens: 70 })
        // The live one still holds its estimate; the late one counted 70 once.
        expect(summary.limits?.find((state) => state.name === 'tokensPerDay')).toMatchObject({
          used: 70,
          reserved: 100,
        })
      }),
    )

    it(
      'holds a money budget: exactly what fits of 30 concurrent requests, then budget_exceeded',
      withMeter(async ({ meter }) => {
        // $0.001 a day; each request holds $0.0001 and costs $0.00012.
        const budgets = [{ usd: 0.001, per: 'day' as const, alertAt: 0.5 }]
        const settings = { budgets }
        const results = await Promise.all(
          Array.from({ length: 30 }, () => reserveMoney(meter, 'money', budgets, 100_000)),
        )
        const admitted = granted(results)
        expect(admitted).toHaveLength(10)
        expect(results.find((result) => !result.granted)).toMatchObject({
          reason: 'rate_limited',
          refusal: { name: 'usdPerDay', limit: 1_000_000, inFlight: true },
        })
        const held = await stateOf(meter, 'money', settings, 'usdPerDay')
        expect(held).toMatchObject({ used: 0, reserved: 1_000_000, remaining: 0 })
        const alerts: unknown[] = []
        for (const reservation of admitted) {
          const result = await meter.settle(reservation, pricedRecord(reservation, 120_000))
          if (result !== undefined && result.alerts !== undefined) alerts.push(...result.alerts)
        }
        // The 50 % threshold ($0.0005) is crossed by the fifth settle, once.
        expect(alerts).toEqual([
          {
            per: 'day',
            limitNanoUsd: 1_000_000,
            alertAtNanoUsd: 500_000,
            spentNanoUsd: 600_000,
            resetInMs: expect.any(Number),
          },
        ])
        const spent = await stateOf(meter, 'money', settings, 'usdPerDay')
        expect(spent).toMatchObject({ used: 1_200_000, reserved: 0, remaining: 0 })
        const refused = await reserveMoney(meter, 'money', budgets, 1)
        expect(refused).toMatchObject({
          granted: false,
          reason: 'budget_exceeded',
          refusal: { name: 'usdPerDay', limit: 1_000_000 },
        })
        expect(refused.granted ? 0 : refused.retryAfterSeconds).toBeGreaterThan(0)
        const summary = await meter.summary('money', settings)
        expect(summary).toMatchObject({ requests: 10, costNanoUsd: 1_200_000, unpricedRequests: 0 })
      }),
    )

    it(
      'counts a day, a month and a lifetime budget apart; an unpriced request adds nothing',
      withMeter(async ({ meter }) => {
        const budgets = [
          { usd: 1, per: 'day' as const },
          { usd: 2, per: 'month' as const },
          { usd: 3, per: 'lifetime' as const },
        ]
        const first = granted([await reserveMoney(meter, 'periods', budgets, 1000)])[0]!
        await meter.settle(first, pricedRecord(first, 7777))
        const second = granted([await reserveMoney(meter, 'periods', budgets, 0)])[0]!
        await meter.settle(second, pricedRecord(second, null))
        const summary = await meter.summary('periods', { budgets })
        expect(summary.limits).toMatchObject([
          { name: 'usdPerDay', limit: 1e9, used: 7777, reserved: 0 },
          { name: 'usdPerMonth', limit: 2e9, used: 7777, reserved: 0 },
          { name: 'usdLifetime', limit: 3e9, used: 7777, reserved: 0, resetInMs: undefined },
        ])
        expect(summary).toMatchObject({ requests: 2, costNanoUsd: 7777, unpricedRequests: 1 })
      }),
    )

    it(
      'settles and releases a reservation of nothing (a cache hit, a tool call), freeing its slot',
      withMeter(async ({ meter }) => {
        const limits = { concurrency: 1 }
        const nothing = { inputTokens: 0, outputTokens: 0 }
        for (let round = 0; round < 3; round += 1) {
          const held = granted([await reserveFor(meter, 'zero', limits, nothing)])[0]
          expect(held).toBeDefined()
          expect((await reserveFor(meter, 'zero', limits, nothing)).granted).toBe(false)
          if (round === 1) await meter.release(held!)
          else await meter.settle(held!, recordOf(held!, undefined))
        }
        expect(await meter.summary('zero')).toMatchObject({ requests: 2, reservedTokens: 0 })
      }),
    )

    it(
      'counts response-cache hits and what they saved, once per settle, priced or not',
      withMeter(async ({ meter }) => {
        const limits = { requestsPerMinute: 10 }
        const first = granted([await reserveFor(meter, 'hits', limits)])[0]!
        await meter.settle(first, pricedRecord(first, 5000))
        // A hit is admitted with nothing reserved and settled with no usage and no charge.
        const nothing = { inputTokens: 0, outputTokens: 0 }
        const hit = granted([await reserveFor(meter, 'hits', limits, nothing)])[0]!
        const hitRecord: UsageRecord = {
          ...pricedRecord(hit, 0),
          usage: undefined,
          cached: true,
          savedCost: pricedRecord(hit, 5000).cost,
        }
        await meter.settle(hit, hitRecord)
        await meter.settle(hit, hitRecord)
        // A hit of an unpriced call: unpriced, and nothing known saved.
        const unpriced = granted([await reserveFor(meter, 'hits', limits, nothing)])[0]!
        await meter.settle(unpriced, {
          ...pricedRecord(unpriced, null),
          usage: undefined,
          cached: true,
          savedCost: null,
        })
        const summary = await meter.summary('hits')
        expect(summary).toMatchObject({
          requests: 3,
          totalTokens: 10,
          costNanoUsd: 5000,
          unpricedRequests: 1,
          cacheHits: 2,
          savedCostNanoUsd: 5000,
        })
        expect(await meter.summary('no-hits')).toMatchObject({ cacheHits: 0, savedCostNanoUsd: 0 })
      }),
    )

    it(
      'keeps a reservation alive past its lease while it is extended',
      withMeter(async ({ meter, elapse, leaseMs }) => {
        const limits = { concurrency: 1 }
        const live = granted([await reserveFor(meter, 'extend', limits)])[0]!
        for (let step = 0; step < 4; step += 1) {
          await elapse(Math.floor(leaseMs / 2))
          await meter.extend!(live)
        }
        expect((await reserveFor(meter, 'extend', limits)).granted).toBe(false)
      }),
    )
  })
}
