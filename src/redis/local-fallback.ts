import type { LimitPlan } from '../usage/key-limits'

/** What the Redis meter does while Redis cannot be reached. */
export type StoreFailurePolicy = {
  /**
   * Token budgets (`tokensPerDay`, `tokensPerMonth`, `quota.tokens`) and money budgets
   * (`keys[].budget`): `closed` (default) refuses requests of keys that have one with a 503;
   * `open` admits them unchecked. Either way the gateway logs the change loudly.
   */
  budgets?: 'closed' | 'open' | undefined
  /**
   * Windows and concurrency: `local` (default) enforces them in this instance at
   * `limit / expectedInstances`; `closed` refuses with a 503.
   */
  windows?: 'local' | 'closed' | undefined
  /** How many gateway instances share the limits: the local share is `limit / expectedInstances` (default 2). */
  expectedInstances?: number | undefined
}

/** The policy with its defaults. */
export type ResolvedFailurePolicy = {
  budgets: 'closed' | 'open'
  windows: 'local' | 'closed'
  expectedInstances: number
}

/** Fills in the defaults of a failure policy. */
export function resolveFailurePolicy(
  policy: StoreFailurePolicy | undefined,
): ResolvedFailurePolicy {
  const expected = policy?.expectedInstances ?? 2
  if (!Number.isInteger(expected) || expected < 1) {
    throw new TypeError('onFailure.expectedInstances must be a whole number of at least 1.')
  }
  return {
    budgets: policy?.budgets ?? 'closed',
    windows: policy?.windows ?? 'local',
    expectedInstances: expected,
  }
}

/**
 * The limits one instance enforces on its own while the store is down: each window and the
 * concurrency limit at its share, `limit / expectedInstances` rounded down (never below 1, or a
 * small limit would refuse everything); no budgets (the policy refuses or admits those).
 */
export function localShare(plan: LimitPlan, policy: ResolvedFailurePolicy): LimitPlan {
  const share = (limit: number) => Math.max(1, Math.floor(limit / policy.expectedInstances))
  return {
    windows: plan.windows.map(({ name, limit }) => ({ name, limit: share(limit) })),
    concurrency: plan.concurrency === undefined ? undefined : share(plan.concurrency),
    budgets: [],
    money: [],
  }
}

/** The log line's account of the policy while the store is down. */
export function describeFailurePolicy(policy: ResolvedFailurePolicy): string {
  const budgets =
    policy.budgets === 'closed'
      ? 'Keys with token or money budgets are refused (503)'
      : 'Token and money budgets are NOT enforced (onFailure.budgets: "open")'
  const windows =
    policy.windows === 'local'
      ? `per-minute windows and concurrency are enforced by each instance alone at 1/${policy.expectedInstances} of each limit (onFailure.expectedInstances)`
      : 'keys with per-minute windows or concurrency limits are refused (503)'
  return `${budgets}; ${windows}; until it answers again.`
}
