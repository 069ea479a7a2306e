import type { Group } from '../routing/group-registry'

export type { RetryBudgetSettings, RetrySettings } from './retry-settings'

/** Retry settings with every default filled in. */
export type RetryPolicy = {
  attempts: number
  deadlineMs: number
  backoffMs: number
  maxBackoffMs: number
  maxRetryAfterMs: number
  budget: { share: number; minRetries: number; windowMs: number }
}

/** The defaults of `RetrySettings`, documented in docs/routing-and-failover.md › Failover. */
export const defaultRetryPolicy: RetryPolicy = Object.freeze({
  attempts: 3,
  deadlineMs: 60_000,
  backoffMs: 50,
  maxBackoffMs: 1000,
  maxRetryAfterMs: 5000,
  budget: Object.freeze({ share: 0.2, minRetries: 10, windowMs: 10_000 }),
})

const resolved = new WeakMap<Group, RetryPolicy>()

/** The group's retry policy: its settings over the defaults, worked out once per group object. */
export function retryPolicyOf(group: Group): RetryPolicy {
  const settings = group.retry
  if (settings === undefined) return defaultRetryPolicy
  let policy = resolved.get(group)
  if (policy === undefined) {
    const budget = settings.budget ?? {}
    const base = defaultRetryPolicy
    policy = {
      attempts: settings.attempts ?? base.attempts,
      deadlineMs: settings.deadlineMs ?? base.deadlineMs,
      backoffMs: settings.backoffMs ?? base.backoffMs,
      maxBackoffMs: settings.maxBackoffMs ?? base.maxBackoffMs,
      maxRetryAfterMs: settings.maxRetryAfterMs ?? base.maxRetryAfterMs,
      budget: {
        share: budget.share ?? base.budget.share,
        minRetries: budget.minRetries ?? base.budget.minRetries,
        windowMs: budget.windowMs ?? base.budget.windowMs,
      },
    }
    resolved.set(group, policy)
  }
  return policy
}
