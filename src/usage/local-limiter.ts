import {
  budgetPeriod,
  periodKindOf,
  type AnyBudgetName,
  type LimitPlan,
  windowMs,
} from './key-limits'
import { admitOnBudget, heldBudgetRetryMs } from './budget-admission'
import {
  adjustBucket,
  counterOf,
  dropHolds,
  expireLeases,
  limitStates,
  newKeyState,
  windowUnits,
  type Held,
  type KeyState,
} from './key-limit-state'
import { bucketCost, bucketWaitMs, refilledLevel } from './token-bucket'
import type {
  BudgetCrossing,
  LimitRefusal,
  LimitState,
  TokenEstimate,
  TokenUsage,
} from './usage-meter'

/** Options of `createLocalLimiter`. */
export type LocalLimiterOptions = {
  now: () => number
  /** How long a reservation lives without `extend`. */
  leaseMs: number
  /** How long a settled or released id is remembered, so that a second settle does nothing. */
  doneTtlMs: number
}

/** The outcome of a check: the state of every limit after the hold, or what refused. */
export type LimitCheck =
  { granted: true; states: LimitState[] } | { granted: false; refusals: LimitRefusal[] }

/**
 * The limit engine of one process: token buckets for the windows, a lease per reservation for
 * concurrency, and UTC calendar budgets of tokens and of money (nano-USD). The memory meter enforces every limit with it; the Redis
 * meter uses it for the windows when Redis cannot be reached. Every step is synchronous, so each is
 * atomic within the process. The rules are the Redis scripts' (`src/redis/lua/`):
 * - a window admits a request when it holds the request's cost (a request larger than the window
 *   waits for a full one); the cost is debited at once, and corrected at settle by actual −
 *   estimate (never refunded when the upstream reported no usage);
 * - a budget admits a request whose estimate fits in what is left, holding it; one that does not
 *   fit only while nothing else is in flight on the budget, holding the remainder
 *   (`admitOnBudget`);
 * - concurrency counts live leases; an expired lease frees its holds (its usage, unknown, is not
 *   counted unless its settle comes later).
 */
export function createLocalLimiter(options: LocalLimiterOptions) {
  const { now, leaseMs, doneTtlMs } = options
  const keys = new Map<string, KeyState>()
  // Insertion order is expiry order (one TTL for all), so pruning stops at the first live entry.
  const done = new Map<string, number>()

  const stateOf = (keyId: string): KeyState => {
    let state = keys.get(keyId)
    if (state === undefined) {
      state = newKeyState()
      keys.set(keyId, state)
    }
    return state
  }
  const prune = (state: KeyState, at: number) => {
    for (const [id, forgetAt] of done) {
      if (forgetAt > at) break
      done.delete(id)
    }
    expireLeases(state, at)
  }

  return {
    /** Checks every limit of the plan and, only if all pass, holds the request's share of each. */
    reserve(id: string, keyId: string, plan: LimitPlan, estimate: TokenEstimate): LimitCheck {
      const at = now()
      const state = stateOf(keyId)
      prune(state, at)
      const refusals: LimitRefusal[] = []
      if (plan.concurrency !== undefined && state.live.size >= plan.concurrency) {
        // When a slot frees is unknown; a second is a short, honest hint.
        refusals.push({ name: 'concurrency', limit: plan.concurrency, retryAfterMs: 1000 })
      }
      const debits: Held['windows'] = {}
      for (const { name, limit } of plan.windows) {
        const level = refilledLevel(state.buckets.get(name), limit, at)
        const cost = bucketCost(windowUnits(name, estimate), limit)
        if (level < cost) {
          refusals.push({ name, limit, retryAfterMs: bucketWaitMs(level, cost, limit) })
        } else debits[name] = cost
      }
      const total = Math.max(0, estimate.inputTokens) + Math.max(0, estimate.outputTokens)
      const cost = Math.max(0, estimate.costNano ?? 0)
      const holds: Held['budgets'] = []
      const check = (name: AnyBudgetName, limit: number, amount: number) => {
        const counter = counterOf(state, name, at)
        const admission = admitOnBudget(limit, counter.spent, counter.held, amount)
        if (admission.admitted) {
          holds.push({ name, periodId: counter.periodId, amount: admission.hold })
        } else if (admission.why === 'held') {
          refusals.push({ name, limit, retryAfterMs: heldBudgetRetryMs, inFlight: true })
        } else {
          const end = budgetPeriod(periodKindOf(name), at).endMs
          refusals.push({ name, limit, retryAfterMs: end === undefined ? undefined : end - at })
        }
      }
      for (const { name, limit } of plan.budgets) check(name, limit, total)
      for (const { name, limit } of plan.money) check(name, limit, cost)
      if (refusals.length > 0) return { granted: false, refusals }

      for (const { name, limit } of plan.windows)
        adjustBucket(state, name, limit, -debits[name]!, at)
      for (const hold of holds) counterOf(state, hold.name, at).held += hold.amount
      const expiresAt = at + leaseMs
      state.live.set(id, { held: { windows: debits, budgets: holds }, tokens: total, expiresAt })
      state.earliestExpiry = Math.min(state.earliestExpiry, expiresAt)
      return { granted: true, states: limitStates(state, plan, at) }
    },

    /**
     * Counts a request's usage once: drops its holds (if its lease is still live), corrects the
     * token windows by actual − estimate, adds the total to every token budget and the cost to
     * every money budget. `false` for an id already settled or released; else the money budgets
     * whose alert threshold this request crossed.
     */
    settle(
      id: string,
      keyId: string,
      plan: LimitPlan,
      estimate: TokenEstimate,
      usage: TokenUsage | undefined,
      costNano = 0,
    ): false | BudgetCrossing[] {
      const at = now()
      const state = stateOf(keyId)
      prune(state, at)
      if (done.has(id)) return false
      const live = state.live.get(id)
      if (live !== undefined) {
        dropHolds(state, live.held, at)
        state.live.delete(id)
      }
      done.set(id, at + doneTtlMs)
      const crossings: BudgetCrossing[] = []
      if (costNano > 0) {
        for (const { name, limit, alertAt } of plan.money) {
          const counter = counterOf(state, name, at)
          const before = counter.spent
          counter.spent += costNano
          if (alertAt !== undefined && before < alertAt && counter.spent >= alertAt) {
            const end = budgetPeriod(periodKindOf(name), at).endMs
            crossings.push({
              per: periodKindOf(name),
              limitNanoUsd: limit,
              alertAtNanoUsd: alertAt,
              spentNanoUsd: counter.spent,
              resetInMs: end === undefined ? undefined : end - at,
            })
          }
        }
      }
      if (usage === undefined) return crossings
      for (const { name, limit } of plan.windows) {
        if (name === 'requestsPerMinute') continue
        // A late settle's debit was made at reserve and never refunded: it was the estimate.
        const debited = live?.held.windows[name] ?? bucketCost(windowUnits(name, estimate), limit)
        const actual = name === 'inputTokensPerMinute' ? usage.inputTokens : usage.outputTokens
        adjustBucket(state, name, limit, debited - actual * windowMs, at)
      }
      for (const { name } of plan.budgets) counterOf(state, name, at).spent += usage.totalTokens
      return crossings
    },

    /** Drops a live reservation's holds and refunds its window debits; unknown ids do nothing. */
    release(id: string, keyId: string, plan: LimitPlan): void {
      const at = now()
      const state = stateOf(keyId)
      prune(state, at)
      const live = state.live.get(id)
      if (live === undefined || done.has(id)) return
      dropHolds(state, live.held, at)
      for (const { name, limit } of plan.windows) {
        adjustBucket(state, name, limit, live.held.windows[name] ?? 0, at)
      }
      state.live.delete(id)
      done.set(id, at + doneTtlMs)
    },

    /** Renews a live lease; `false` when it already expired. */
    extend(id: string, keyId: string): boolean {
      const live = keys.get(keyId)?.live.get(id)
      if (live === undefined) return false
      live.expiresAt = now() + leaseMs
      return true
    },

    /**
     * Counts what was used before this process started (from the usage ledger) in a budget's
     * period `periodId`: tokens for a token budget, nano-USD for a money budget. A period that
     * ended meanwhile is left alone: the new one starts empty. Seeding comes before the budget's
     * first request, so nothing counted here is counted twice; should a settle have come first,
     * the larger count stands.
     */
    seed(keyId: string, name: AnyBudgetName, periodId: number, used: number): void {
      const counter = counterOf(stateOf(keyId), name, now())
      if (counter.periodId === periodId) counter.spent = Math.max(counter.spent, used)
    },

    /** The tokens that the key's live reservations estimated, together. */
    reservedTokens(keyId: string): number {
      const state = keys.get(keyId)
      if (state === undefined) return 0
      prune(state, now())
      let tokens = 0
      for (const live of state.live.values()) tokens += live.tokens
      return tokens
    },

    /** The state of every limit of the plan, changing nothing but expired leases. */
    status(keyId: string, plan: LimitPlan): LimitState[] {
      const at = now()
      const state = stateOf(keyId)
      prune(state, at)
      return limitStates(state, plan, at)
    },
  }
}

/** A limit engine of one process. */
export type LocalLimiter = ReturnType<typeof createLocalLimiter>
