import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type {
  MeteredSubject,
  MeteredSubjectRef,
  Reservation,
  UsageMeter,
} from '../../src/usage/usage-meter'
import { inputUsage, recordOf } from './meter-contract'

/**
 * The limits' properties with every level — a key, its team, the key's end user and the
 * organisation above them all — over random interleavings of reserves and settles (issue 33), for
 * any meter (`test/usage/three-level-properties.test.ts`: memory; `test/redis/redis-level-
 * properties.test.ts`: Redis, one script and one script per slot):
 * - all or nothing: a refused reserve changes no level's counters;
 * - every admitted request is charged to every level it named, and a settle drops every hold;
 * - the bound: with usage at most the estimate, no level's budget is overshot by more than one
 *   request's usage (the one admitted alone on the remainder; ADR 0010, per level in ADR 0028).
 *
 * Keys k1 and k2 are in team `data`; k3 has no team. Every key's requests name one of three end
 * users of that key (perUser), and the organisation's budget is above all of them.
 */
const keyQuota = { tokensPerDay: 900 }
const teamLimits = { tokensPerDay: 1200 }
const userLimits = { tokensPerDay: 500 }
const orgLimits = { tokensPerDay: 1500 }

const keyIds = ['k1', 'k2', 'k3'] as const
const users = ['u1', 'u2', 'u3'] as const

type Op =
  | { kind: 'reserve'; key: number; user: number; estimate: number }
  | { kind: 'settle'; pick: number; share: number }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('reserve' as const),
    key: fc.integer({ min: 0, max: keyIds.length - 1 }),
    user: fc.integer({ min: 0, max: users.length - 1 }),
    estimate: fc.integer({ min: 1, max: 400 }),
  }),
  fc.record({
    kind: fc.constant('settle' as const),
    pick: fc.nat(),
    share: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
)

const subjectsOf = (key: string, user: string): MeteredSubject[] => [
  { kind: 'end-user', id: user, keyId: key, limits: userLimits },
  ...(key === 'k3' ? [] : [{ kind: 'team' as const, id: 'data', limits: teamLimits }]),
  { kind: 'organisation', id: 'default', limits: orgLimits },
]

async function usedAndHeld(meter: UsageMeter, subject: string | MeteredSubjectRef, limits: object) {
  const summary = await meter.summary(subject, { limits, quotaTokens: undefined })
  const state = summary.limits!.find((item) => item.name === 'tokensPerDay')!
  return { used: state.used ?? 0, held: state.reserved ?? 0 }
}

/** Every level's counters, in a fixed order: keys, the team, the organisation, end users. */
async function snapshot(meter: UsageMeter) {
  const levels: { used: number; held: number; limit: number }[] = []
  for (const key of keyIds) {
    levels.push({ ...(await usedAndHeld(meter, key, keyQuota)), limit: keyQuota.tokensPerDay })
  }
  levels.push({
    ...(await usedAndHeld(meter, { kind: 'team', id: 'data' }, teamLimits)),
    limit: teamLimits.tokensPerDay,
  })
  levels.push({
    ...(await usedAndHeld(meter, { kind: 'organisation', id: 'default' }, orgLimits)),
    limit: orgLimits.tokensPerDay,
  })
  for (const key of keyIds) {
    for (const user of users) {
      levels.push({
        ...(await usedAndHeld(meter, { kind: 'end-user', id: user, keyId: key }, userLimits)),
        limit: userLimits.tokensPerDay,
      })
    }
  }
  return levels
}

/** A fresh meter for one run of the property, and how to clean up after it. */
export type LevelMeterFactory = () => Promise<{ meter: UsageMeter; close(): Promise<void> }>

/** The properties above, `numRuns` random runs of up to 60 operations each. */
export function describeLevelProperties(name: string, fresh: LevelMeterFactory, numRuns: number) {
  describe(`the limits with every level (key, end user, team, organisation), as properties: ${name}`, () => {
    it('are all or nothing, charge every level, and hold the bound at each level', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60 }), async (ops) => {
          const { meter, close } = await fresh()
          try {
            await run(meter, ops)
          } finally {
            await close()
          }
        }),
        { numRuns },
      )
    }, 120_000)
  })
}

async function run(meter: UsageMeter, ops: readonly Op[]) {
  const inFlight: { reservation: Reservation; estimate: number }[] = []
  let largest = 0
  let count = 0
  for (const op of ops) {
    if (op.kind === 'reserve') {
      const key = keyIds[op.key]!
      const before = await snapshot(meter)
      count += 1
      const result = await meter.reserve({
        requestId: `r${count}`,
        keyId: key,
        quotaTokens: undefined,
        limits: keyQuota,
        subjects: subjectsOf(key, users[op.user]!),
        estimatedTokens: op.estimate,
        estimate: { inputTokens: op.estimate, outputTokens: 0 },
      })
      if (result.granted) {
        inFlight.push({ reservation: result.reservation, estimate: op.estimate })
      } else {
        // All or nothing: nothing was charged or held anywhere.
        expect(await snapshot(meter)).toEqual(before)
      }
    } else if (inFlight.length > 0) {
      const [taken] = inFlight.splice(op.pick % inFlight.length, 1)
      const used = Math.floor(taken!.estimate * op.share)
      largest = Math.max(largest, used)
      await meter.settle(taken!.reservation, recordOf(taken!.reservation, inputUsage(used)))
    }
    for (const level of await snapshot(meter)) {
      expect(level.used).toBeLessThanOrEqual(level.limit + largest)
    }
  }
  for (const { reservation, estimate } of inFlight.splice(0)) {
    await meter.settle(reservation, recordOf(reservation, inputUsage(estimate)))
    largest = Math.max(largest, estimate)
  }
  const levels = await snapshot(meter)
  // Every hold was dropped at every level, and a level's use is the sum of its requests': the
  // team's is its two keys', the organisation's every key's, each key's its end users'.
  for (const level of levels) {
    expect(level.held).toBe(0)
    expect(level.used).toBeLessThanOrEqual(level.limit + largest)
  }
  const [k1, k2, k3, team, org, ...endUsers] = levels
  expect(team!.used).toBe(k1!.used + k2!.used)
  expect(org!.used).toBe(k1!.used + k2!.used + k3!.used)
  const sum = (from: number) =>
    endUsers.slice(from, from + users.length).reduce((total, level) => total + level.used, 0)
  expect(k1!.used).toBe(sum(0))
  expect(k2!.used).toBe(sum(3))
  expect(k3!.used).toBe(sum(6))
}
