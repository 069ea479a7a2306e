import { describe, expect, it } from 'vitest'
import type { KeyLimits } from '../../src/usage/key-limits'
import type {
  MeteredSubject,
  Reservation,
  ReserveResult,
  UsageMeter,
} from '../../src/usage/usage-meter'
import { inputUsage, recordOf } from './meter-contract'

/**
 * Two meters sharing one state (two instances on one Redis, or one memory meter twice), and the
 * ids of this test run, so that runs never share subjects.
 */
export type SharedMeters = {
  meters: readonly [UsageMeter, UsageMeter]
  close(): Promise<void>
}

let requests = 0

/** Reserves for a key with these limits, charging `subjects` too. */
export function reserveWith(
  meter: UsageMeter,
  keyId: string,
  subjects: readonly MeteredSubject[],
  limits: KeyLimits = {},
  estimate = { inputTokens: 100, outputTokens: 0 },
): Promise<ReserveResult> {
  requests += 1
  return Promise.resolve(
    meter.reserve({
      requestId: `subj_${requests}`,
      keyId,
      limits,
      quotaTokens: undefined,
      subjects,
      estimatedTokens: estimate.inputTokens + estimate.outputTokens,
      estimate,
    }),
  )
}

const held = (results: readonly ReserveResult[]): Reservation[] =>
  results.flatMap((result) => (result.granted ? [result.reservation] : []))

async function limitOf(
  meter: UsageMeter,
  subject: MeteredSubject | string,
  name: string,
): Promise<{ remaining: number; used?: number | undefined; reserved?: number | undefined }> {
  const summary =
    typeof subject === 'string'
      ? await meter.summary(subject, { limits: { requestsPerMinute: 10, tokensPerDay: 100_000 } })
      : await meter.summary(subject, subject)
  const state = summary.limits?.find((limit) => limit.name === name)
  if (state === undefined) throw new Error(`no ${name} state`)
  return state
}

/**
 * What every meter that lists subjects in `subjectKinds` must do the same way with two and three
 * subjects: check them all at once, charge all or none, settle and release all, and name the
 * subject that refused.
 */
export function describeSubjectsContract(name: string, factory: () => Promise<SharedMeters>) {
  const withMeters = (test: (meters: SharedMeters) => Promise<void>) => async () => {
    const shared = await factory()
    try {
      await test(shared)
    } finally {
      await shared.close()
    }
  }
  const run = crypto.randomUUID().slice(0, 8)
  const team = (limits: KeyLimits, id = `team-${run}`): MeteredSubject => ({
    kind: 'team',
    id,
    limits,
  })
  const org = (limits: KeyLimits): MeteredSubject => ({
    kind: 'organisation',
    id: `org-${run}`,
    limits,
  })

  describe(`metered subjects: ${name}`, () => {
    it(
      'lists every subject kind it enforces',
      withMeters(async ({ meters: [meter] }) => {
        expect(meter.subjectKinds).toEqual(['team', 'organisation', 'end-user'])
      }),
    )

    it(
      'refuses a request any subject refuses, charges none of them, and names the subject',
      withMeters(async ({ meters: [meter] }) => {
        const key = `k1-${run}`
        const subjects = [team({ concurrency: 1 }), org({ tokensPerDay: 100_000 })]
        const first = await reserveWith(meter, key, subjects, { requestsPerMinute: 10 })
        expect(first.granted).toBe(true)
        const second = await reserveWith(meter, key, subjects, { requestsPerMinute: 10 })
        expect(second).toMatchObject({
          granted: false,
          reason: 'rate_limited',
          refusal: { name: 'concurrency', limit: 1, subject: { kind: 'team', id: `team-${run}` } },
        })
        // Only the first request was counted by the key and the organisation.
        expect(await limitOf(meter, key, 'requestsPerMinute')).toMatchObject({ remaining: 9 })
        expect(await limitOf(meter, subjects[1]!, 'tokensPerDay')).toMatchObject({
          reserved: 100,
        })
        expect((await meter.summary(key)).reservedTokens).toBe(100)
      }),
    )

    it(
      'refuses on a spent organisation budget, naming the organisation, with the key and team untouched',
      withMeters(async ({ meters: [meter] }) => {
        const key = `k2-${run}`
        const subjects = [team({ tokensPerDay: 10_000 }), org({ tokensPerDay: 150 })]
        const first = await reserveWith(meter, key, subjects)
        if (!first.granted) throw new Error('expected a grant')
        await meter.settle(first.reservation, recordOf(first.reservation, inputUsage(150)))
        const refused = await reserveWith(meter, key, subjects, { requestsPerMinute: 10 })
        expect(refused).toMatchObject({
          granted: false,
          reason: 'quota_exceeded',
          refusal: { name: 'tokensPerDay', limit: 150, subject: { kind: 'organisation' } },
        })
        expect(await limitOf(meter, key, 'requestsPerMinute')).toMatchObject({ remaining: 10 })
        expect(await limitOf(meter, subjects[0]!, 'tokensPerDay')).toMatchObject({
          used: 150,
          reserved: 0,
        })
      }),
    )

    it(
      'settles every subject: usage, budgets and totals of the key, the team and the organisation',
      withMeters(async ({ meters: [meter, other] }) => {
        const key = `k3-${run}`
        const subjects = [team({ tokensPerDay: 10_000 }), org({ tokensPerDay: 20_000 })]
        const result = await reserveWith(meter, key, subjects, { tokensPerDay: 5000 })
        if (!result.granted) throw new Error('expected a grant')
        expect(result.subjectLimits?.map((entry) => entry.subject)).toEqual([
          { kind: 'team', id: `team-${run}` },
          { kind: 'organisation', id: `org-${run}` },
        ])
        // Another instance may settle it: a reservation is plain data.
        await other.settle(result.reservation, recordOf(result.reservation, inputUsage(70, 30)))
        for (const subject of [key, ...subjects]) {
          expect(await limitOf(meter, subject, 'tokensPerDay')).toMatchObject({
            used: 100,
            reserved: 0,
          })
          const summary =
            typeof subject === 'string'
              ? await meter.summary(subject)
              : await meter.summary(subject)
          expect(summary).toMatchObject({
            requests: 1,
            inputTokens: 70,
            outputTokens: 30,
            reservedTokens: 0,
          })
        }
        // A second settle counts nothing anywhere.
        await meter.settle(result.reservation, recordOf(result.reservation, inputUsage(70, 30)))
        expect(await limitOf(meter, subjects[1]!, 'tokensPerDay')).toMatchObject({ used: 100 })
      }),
    )

    it(
      'releases every subject',
      withMeters(async ({ meters: [meter] }) => {
        const key = `k4-${run}`
        const subjects = [team({ concurrency: 1 }), org({ concurrency: 1 })]
        const first = await reserveWith(meter, key, subjects)
        if (!first.granted) throw new Error('expected a grant')
        expect((await reserveWith(meter, key, subjects)).granted).toBe(false)
        await meter.release(first.reservation)
        expect((await reserveWith(meter, key, subjects)).granted).toBe(true)
      }),
    )

    it(
      'never overshoots the tighter subject: two keys of one team, over two instances',
      withMeters(async ({ meters }) => {
        const subjects = [team({ tokensPerDay: 1000 }), org({ tokensPerDay: 100_000 })]
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, index) =>
            reserveWith(meters[index % 2]!, `k5${index % 2}-${run}`, subjects, {
              tokensPerDay: 700,
            }),
          ),
        )
        const admitted = held(results)
        // Ten fit in the team's 1,000 (each key's 700 would admit seven).
        expect(admitted).toHaveLength(10)
        // Reserved one slot at a time (Cluster), a key may also refuse while a hold it made for
        // a request the team then refused is being released.
        const refusals = results.flatMap((result) => (result.granted ? [] : [result.refusal]))
        expect(refusals).toContainEqual(
          expect.objectContaining({ subject: expect.objectContaining({ kind: 'team' }) }),
        )
        expect(await limitOf(meters[0], subjects[0]!, 'tokensPerDay')).toMatchObject({
          reserved: 1000,
        })
        // The organisation holds exactly what the team admitted.
        expect(await limitOf(meters[1], subjects[1]!, 'tokensPerDay')).toMatchObject({
          reserved: 1000,
        })
        await Promise.all(
          admitted.map((reservation, index) =>
            meters[index % 2]!.settle(reservation, recordOf(reservation, inputUsage(100))),
          ),
        )
        expect(await limitOf(meters[0], subjects[1]!, 'tokensPerDay')).toMatchObject({
          used: 1000,
          reserved: 0,
        })
      }),
    )

    it(
      "keeps an end user's limits per key, beside the key",
      withMeters(async ({ meters: [meter] }) => {
        const user: MeteredSubject = { kind: 'end-user', id: 'alice', limits: { concurrency: 1 } }
        const [a, b] = [`k6a-${run}`, `k6b-${run}`]
        expect((await reserveWith(meter, a, [user])).granted).toBe(true)
        expect(await reserveWith(meter, a, [user])).toMatchObject({
          granted: false,
          refusal: { name: 'concurrency', subject: { kind: 'end-user', id: 'alice' } },
        })
        // Another key's alice is another end user.
        expect((await reserveWith(meter, b, [user])).granted).toBe(true)
        const summary = await meter.summary(
          { kind: 'end-user', id: 'alice', keyId: a },
          { limits: { concurrency: 1 } },
        )
        expect(summary.limits).toEqual([{ name: 'concurrency', limit: 1, remaining: 0 }])
      }),
    )

    it(
      "names the subject whose money budget's alert threshold a settle crossed",
      withMeters(async ({ meters: [meter] }) => {
        const key = `k7-${run}`
        const subjects: MeteredSubject[] = [
          { kind: 'team', id: `team7-${run}`, budgets: [{ usd: 1, per: 'day', alertAt: 0.5 }] },
        ]
        const result = await Promise.resolve(
          meter.reserve({
            requestId: `alert-${run}`,
            keyId: key,
            quotaTokens: undefined,
            subjects,
            estimatedTokens: 10,
            estimate: { inputTokens: 10, outputTokens: 0, costNano: 600_000_000 },
          }),
        )
        if (!result.granted) throw new Error('expected a grant')
        const record = recordOf(result.reservation, inputUsage(10))
        const price = {
          model: 'm',
          input: 1,
          output: 1,
          cachedInput: 1,
          cacheWrite: 1,
          cacheWrite1h: 1,
          multiplier: 1,
          source: 'test',
        }
        const settled = await meter.settle(result.reservation, {
          ...record,
          cost: { nanoUsd: 600_000_000, listNanoUsd: 600_000_000, price },
        })
        expect(settled?.alerts).toMatchObject([
          {
            subject: { kind: 'team', id: `team7-${run}` },
            per: 'day',
            spentNanoUsd: 600_000_000,
          },
        ])
      }),
    )

    it(
      'refuses a second key subject',
      withMeters(async ({ meters: [meter] }) => {
        const second = Promise.resolve().then(() =>
          reserveWith(meter, `k8-${run}`, [{ kind: 'key', id: 'other' }]),
        )
        await expect(second).rejects.toThrow(/one key/)
      }),
    )
  })
}
