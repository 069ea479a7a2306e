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
import { bucketCapacity, bucketCost, bucketWaitMs, refilledLevel } from './token-bucket'
import type {
  BudgetCrossing,
  LimitRefusal,
  LimitState,
  MeteredSubjectRef,
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

/** One subject of a check: where its state lives, its limits, and who it is (absent: the key). */
export type LimitSubject = { slot: string; plan: LimitPlan; ref?: MeteredSubjectRef | undefined }

/**
 * The outcome of a check: the state of every limit of every subject after the hold (in the
 * subjects' order), or what refused.
 */
export type LimitCheck =
  { granted: true; states: LimitState[][] } | { granted: false; refusals: LimitRefusal[] }

/**
 * The limit engine of one process: token buckets for the windows, a lease per reservation for
 * concurrency, and UTC calendar budgets of tokens and of money (nano-USD), per metered subject (a
 * key, a team, the organisation, an end user; each in its own `slot`). The memory meter enforces
 * every limit with it; the Redis meter uses it for the windows when Redis cannot be reached. Every step is synchronous, so each is
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

  const stateOf = (slot: string): KeyState => {
    let state = keys.get(slot)
    if (state === undefined) {
      state = newKeyState()
      keys.set(slot, state)
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

  /** Settles one subject of a reservation (see `settle`). */
  const settleOne = (
    { slot, plan, ref }: LimitSubject,
    id: string,
    estimate: TokenEstimate,
    usage: TokenUsage | undefined,
    costNano: number,
    at: number,
    crossings: BudgetCrossing[],
  ) => {
    const state = stateOf(slot)
    const live = state.live.get(id)
    if (live !== undefined) {
      dropHolds(state, live.held, at)
      state.live.delete(id)
    }
    if (costNano > 0) {
      for (const { name, limit, alertAt } of plan.money) {
        const counter = counterOf(state, name, at)
        const before = counter.spent
        counter.spent += costNano
        if (alertAt !== undefined && before < alertAt && counter.spent >= alertAt) {
          const end = budgetPeriod(periodKindOf(name), at).endMs
          crossings.push({
            ...(ref === undefined ? {} : { subject: ref }),
            per: periodKindOf(name),
            limitNanoUsd: limit,
            alertAtNanoUsd: alertAt,
            spentNanoUsd: counter.spent,
            resetInMs: end === undefined ? undefined : end - at,
          })
        }
      }
    }
    if (usage === undefined) return
    for (const { name, limit } of plan.windows) {
      if (name === 'requestsPerMinute') continue
      // A late settle's debit was made at reserve and never refunded: it was the estimate.
      const debited = live?.held.windows[name] ?? bucketCost(windowUnits(name, estimate), limit)
      const actual = name === 'inputTokensPerMinute' ? usage.inputTokens : usage.outputTokens
      adjustBucket(state, name, limit, debited - actual * windowMs, at)
    }
    for (const { name } of plan.budgets) counterOf(state, name, at).spent += usage.totalTokens
  }

  /** Checks one subject's limits, adding what refused to `refusals`; its holds if it passes. */
  const check = (
    subject: LimitSubject,
    estimate: TokenEstimate,
    at: number,
    refusals: LimitRefusal[],
  ): Held => {
    const { plan } = subject
    const state = stateOf(subject.slot)
    prune(state, at)
    const tag = subject.ref === undefined ? undefined : { subject: subject.ref }
    const refuse = (refusal: LimitRefusal) =>
      refusals.push(tag === undefined ? refusal : { ...refusal, ...tag })
    if (plan.concurrency !== undefined && state.live.size >= plan.concurrency) {
      // When a slot frees is unknown; a second is a short, honest hint.
      refuse({ name: 'concurrency', limit: plan.concurrency, retryAfterMs: 1000 })
    }
    const debits: Held['windows'] = {}
    for (const { name, limit } of plan.windows) {
      const level = refilledLevel(state.buckets.get(name), limit, at)
      const cost = bucketCost(windowUnits(name, estimate), limit)
      if (level < cost) {
        refuse({ name, limit, retryAfterMs: bucketWaitMs(level, cost, limit) })
      } else debits[name] = cost
    }
    const total = Math.max(0, estimate.inputTokens) + Math.max(0, estimate.outputTokens)
    const cost = Math.max(0, estimate.costNano ?? 0)
    const holds: Held['budgets'] = []
    const budget = (name: AnyBudgetName, limit: number, amount: number) => {
      const counter = counterOf(state, name, at)
      const admission = admitOnBudget(limit, counter.spent, counter.held, amount)
      if (admission.admitted) {
        holds.push({ name, periodId: counter.periodId, amount: admission.hold })
      } else if (admission.why === 'held') {
        refuse({ name, limit, retryAfterMs: heldBudgetRetryMs, inFlight: true })
      } else {
        const end = budgetPeriod(periodKindOf(name), at).endMs
        refuse({ name, limit, retryAfterMs: end === undefined ? undefined : end - at })
      }
    }
    for (const { name, limit } of plan.budgets) budget(name, limit, total)
    for (const { name, limit } of plan.money) budget(name, limit, cost)
    return { windows: debits, budgets: holds }
  }

  return {
    /**
     * Checks every limit of every subject and, only if all pass, holds the request's share of
     * each (all or nothing). `states` has each subject's limits after it, in order.
     */
    reserve(id: string, subjects: readonly LimitSubject[], estimate: TokenEstimate): LimitCheck {
      const at = now()
      const refusals: LimitRefusal[] = []
      const held: Held[] = []
      for (const subject of subjects) held.push(check(subject, estimate, at, refusals))
      if (refusals.length > 0) return { granted: false, refusals }

      const total = Math.max(0, estimate.inputTokens) + Math.max(0, estimate.outputTokens)
      const expiresAt = at + leaseMs
      const states: LimitState[][] = []
      subjects.forEach(({ slot, plan }, index) => {
        const state = stateOf(slot)
        const holds = held[index]!
        for (const { name, limit } of plan.windows)
          adjustBucket(state, name, limit, -holds.windows[name]!, at)
        for (const hold of holds.budgets) counterOf(state, hold.name, at).held += hold.amount
        state.live.set(id, { held: holds, tokens: total, expiresAt })
        state.earliestExpiry = Math.min(state.earliestExpiry, expiresAt)
        states.push(limitStates(state, plan, at))
      })
      return { granted: true, states }
    },

    /**
     * Counts a request's usage once against every subject: drops its holds (if its lease is still
     * live), corrects the token windows by actual − estimate, adds the total to every token budget
     * and the cost to every money budget. `false` for an id already settled or released; else the
     * money budgets whose alert threshold this request crossed.
     */
    settle(
      id: string,
      subjects: readonly LimitSubject[],
      estimate: TokenEstimate,
      usage: TokenUsage | undefined,
      costNano = 0,
    ): false | BudgetCrossing[] {
      const at = now()
      for (const subject of subjects) prune(stateOf(subject.slot), at)
      if (done.has(id)) return false
      done.set(id, at + doneTtlMs)
      const crossings: BudgetCrossing[] = []
      for (const subject of subjects)
        settleOne(subject, id, estimate, usage, costNano, at, crossings)
      return crossings
    },

    /** Drops a live reservation's holds and refunds its window debits; unknown ids do nothing. */
    release(id: string, subjects: readonly LimitSubject[]): void {
      const at = now()
      if (done.has(id)) return
      let found = false
      for (const { slot, plan } of subjects) {
        const state = stateOf(slot)
        prune(state, at)
        const live = state.live.get(id)
        if (live === undefined) continue
        found = true
        dropHolds(state, live.held, at)
        for (const { name, limit } of plan.windows) {
          adjustBucket(state, name, limit, live.held.windows[name] ?? 0, at)
        }
        state.live.delete(id)
      }
      if (found) done.set(id, at + doneTtlMs)
    },

    /** Renews a live lease of every subject; `false` when it already expired. */
    extend(id: string, subjects: readonly { slot: string }[]): boolean {
      let extended = false
      for (const { slot } of subjects) {
        const live = keys.get(slot)?.live.get(id)
        if (live === undefined) continue
        live.expiresAt = now() + leaseMs
        extended = true
      }
      return extended
    },

    /**
     * Counts what was used before this process started (from the usage ledger) in a budget's
     * period `periodId`: tokens for a token budget, nano-USD for a money budget. A period that
     * ended meanwhile is left alone: the new one starts empty. Seeding comes before the budget's
     * first request, so nothing counted here is counted twice; should a settle have come first,
     * the larger count stands.
     */
    seed(slot: string, name: AnyBudgetName, periodId: number, used: number): void {
      const counter = counterOf(stateOf(slot), name, now())
      if (counter.periodId === periodId) counter.spent = Math.max(counter.spent, used)
    },

    /** The tokens that a subject's live reservations estimated, together. */
    reservedTokens(slot: string): number {
      const state = keys.get(slot)
      if (state === undefined) return 0
      prune(state, now())
      let tokens = 0
      for (const live of state.live.values()) tokens += live.tokens
      return tokens
    },

    /**
     * The state of every limit of the plan, changing nothing but expired leases. A subject never
     * seen reads as a new one, and is not kept: asking about it costs no memory.
     */
    status(slot: string, plan: LimitPlan): LimitState[] {
      const at = now()
      const state = keys.get(slot)
      if (state === undefined) return limitStates(newKeyState(), plan, at)
      prune(state, at)
      return limitStates(state, plan, at)
    },

    /**
     * Forgets a subject whose state is as a new one's would be under `plan` — no lease live, every
     * window's bucket full again, no budget spent or held in its current period — so that a
     * subject seen once (an end user of a shared key) does not stay in memory for ever. A budget
     * spent in this period keeps the subject until the period ends (a lifetime budget: always),
     * so forgetting never gives back a limit. `true` when the subject is gone.
     */
    forgetIfAtRest(slot: string, plan: LimitPlan): boolean {
      const state = keys.get(slot)
      if (state === undefined) return true
      const at = now()
      prune(state, at)
      if (state.live.size > 0) return false
      for (const { name, limit } of plan.windows) {
        const bucket = state.buckets.get(name)
        if (bucket !== undefined && refilledLevel(bucket, limit, at) < bucketCapacity(limit)) {
          return false
        }
      }
      for (const [name, counter] of state.budgets) {
        if (counter.periodId !== budgetPeriod(periodKindOf(name), at).id) continue
        if (counter.spent > 0 || counter.held > 0) return false
      }
      keys.delete(slot)
      return true
    },
  }
}

/** A limit engine of one process. */
export type LocalLimiter = ReturnType<typeof createLocalLimiter>
