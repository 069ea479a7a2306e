import type { RetryPolicy } from './retry-policy'

/** One group's retry budget: requests deposit, retries withdraw. */
export type RetryBudget = {
  /** Counts a request that reached the group. */
  deposit(): void
  /** Counts a retry and returns true when the budget has room for it, else returns false. */
  withdraw(): boolean
}

const slots = 10

/**
 * A retry budget over a sliding window: a retry is allowed while the retries of the last
 * `windowMs` are fewer than `share` × the requests of that window plus `minRetries`. Counted, not
 * sampled in flight, so the bound holds however fast attempts fail: whatever the traffic, a group
 * makes at most (1 + share) × its requests + `minRetries` per window upstream attempts.
 *
 * The window is ten slots kept in two small rings: a call costs a clock read and a few integer
 * operations, and allocates nothing.
 */
export function createRetryBudget(settings: RetryPolicy['budget'], now: () => number): RetryBudget {
  const slotMs = Math.max(1, settings.windowMs / slots)
  const requests = new Array<number>(slots).fill(0)
  const retries = new Array<number>(slots).fill(0)
  let requestSum = 0
  let retrySum = 0
  let current = Math.floor(now() / slotMs)
  /** The ring index of the present slot, once the slots that went by are emptied. */
  const advance = (): number => {
    const slot = Math.floor(now() / slotMs)
    if (slot !== current) {
      const passed = Math.min(slots, Math.max(0, slot - current))
      for (let step = 1; step <= passed; step++) {
        const index = (current + step) % slots
        requestSum -= requests[index]!
        retrySum -= retries[index]!
        requests[index] = 0
        retries[index] = 0
      }
      current = slot
    }
    return current % slots
  }
  return {
    deposit() {
      const index = advance()
      requests[index]! += 1
      requestSum += 1
    },
    withdraw() {
      const index = advance()
      if (retrySum >= settings.share * requestSum + settings.minRetries) return false
      retries[index]! += 1
      retrySum += 1
      return true
    },
  }
}

/** The retry budgets of a gateway, one per group id, made on first use. */
export function createRetryBudgets(now: () => number) {
  const budgets = new Map<string, RetryBudget>()
  return (groupId: string, policy: RetryPolicy): RetryBudget => {
    let budget = budgets.get(groupId)
    if (budget === undefined) {
      budget = createRetryBudget(policy.budget, now)
      budgets.set(groupId, budget)
    }
    return budget
  }
}
