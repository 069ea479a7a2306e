import {
  budgetPeriod,
  periodKindOf,
  type AnyBudgetName,
  type LimitPlan,
  type WindowLimitName,
} from './key-limits'
import {
  bucketCapacity,
  bucketRemaining,
  bucketResetMs,
  refilledLevel,
  type Bucket,
} from './token-bucket'
import type { LimitState, TokenEstimate } from './usage-meter'

// The local limiter's state per key and the steps on it that every operation shares
// (`local-limiter.ts` holds the operations: reserve, settle, release, extend, seed, status).

/** A budget's counter in one period: what was spent, and what requests in flight hold. */
export type Counter = { periodId: number; spent: number; held: number }

/** What one reservation holds, to be given back when it ends. */
export type Held = {
  /** Units each window was debited. */
  windows: Partial<Record<WindowLimitName, number>>
  /** Tokens held by each token budget, nano-USD by each money budget. */
  budgets: { name: AnyBudgetName; periodId: number; amount: number }[]
}

/** A live reservation: its holds, its estimated tokens and when its lease expires. */
export type Live = { held: Held; tokens: number; expiresAt: number }

/** One key's limits in this process: window buckets, budget counters and live leases. */
export type KeyState = {
  buckets: Map<WindowLimitName, Bucket>
  budgets: Map<AnyBudgetName, Counter>
  live: Map<string, Live>
  /** No lease expires before this instant (a lower bound: extending only moves leases later). */
  earliestExpiry: number
}

/** A request's cost in each window. */
export function windowUnits(name: WindowLimitName, estimate: TokenEstimate): number {
  switch (name) {
    case 'requestsPerMinute':
      return 1
    case 'inputTokensPerMinute':
      return estimate.inputTokens
    case 'outputTokensPerMinute':
      return estimate.outputTokens
    default: {
      const unknown: never = name
      throw new Error(`Unknown window ${String(unknown)}`)
    }
  }
}

/** A key seen for the first time: full buckets, empty budgets, no lease. */
export function newKeyState(): KeyState {
  return { buckets: new Map(), budgets: new Map(), live: new Map(), earliestExpiry: Infinity }
}

/** A budget's counter in the period `at` falls in; a new period starts it empty. */
export function counterOf(state: KeyState, name: AnyBudgetName, at: number): Counter {
  const periodId = budgetPeriod(periodKindOf(name), at).id
  let counter = state.budgets.get(name)
  if (counter === undefined || counter.periodId !== periodId) {
    // A new period starts empty: holds of the old one are not carried over.
    counter = { periodId, spent: 0, held: 0 }
    state.budgets.set(name, counter)
  }
  return counter
}

/** Drops a reservation's budget holds, those of a period that has since ended excepted. */
export function dropHolds(state: KeyState, held: Held, at: number): void {
  for (const hold of held.budgets) {
    const counter = counterOf(state, hold.name, at)
    if (counter.periodId === hold.periodId) counter.held = Math.max(0, counter.held - hold.amount)
  }
}

/** Ends the leases that expired by `at`, dropping their holds; cheap until the earliest expires. */
export function expireLeases(state: KeyState, at: number): void {
  if (at < state.earliestExpiry) return
  let earliest = Infinity
  for (const [id, live] of state.live) {
    if (live.expiresAt <= at) {
      dropHolds(state, live.held, at)
      state.live.delete(id)
    } else earliest = Math.min(earliest, live.expiresAt)
  }
  state.earliestExpiry = earliest
}

/** Moves a window's bucket by `by` units (negative: a debit), refilled to `at` and capped. */
export function adjustBucket(
  state: KeyState,
  name: WindowLimitName,
  limit: number,
  by: number,
  at: number,
): void {
  const level = refilledLevel(state.buckets.get(name), limit, at)
  state.buckets.set(name, { level: Math.min(bucketCapacity(limit), level + by), updatedAt: at })
}

/** The state of every limit of the plan at `at`: what is left, when it resets, what is held. */
export function limitStates(state: KeyState, plan: LimitPlan, at: number): LimitState[] {
  const result: LimitState[] = []
  for (const { name, limit } of plan.windows) {
    const level = refilledLevel(state.buckets.get(name), limit, at)
    result.push({
      name,
      limit,
      remaining: bucketRemaining(level),
      resetInMs: bucketResetMs(level, limit),
    })
  }
  if (plan.concurrency !== undefined) {
    const remaining = Math.max(0, plan.concurrency - state.live.size)
    result.push({ name: 'concurrency', limit: plan.concurrency, remaining })
  }
  for (const { name, limit } of [...plan.budgets, ...plan.money]) {
    const counter = counterOf(state, name, at)
    const period = budgetPeriod(periodKindOf(name), at)
    result.push({
      name,
      limit,
      remaining: Math.max(0, limit - counter.spent - counter.held),
      resetInMs: period.endMs === undefined ? undefined : period.endMs - at,
      used: counter.spent,
      reserved: counter.held,
    })
  }
  return result
}
