import type { Group } from '../routing/group-registry'

/** How many times, and how patiently, a group's calls are retried (`groups[].retry`). */
export type RetrySettings = {
  /** Attempts per request in this group, the first included (default 3; 1 turns failover off). */
  attempts?: number | undefined
  /** No new attempt starts later than this after the request reached the group (default 60000). */
  deadlineMs?: number | undefined
  /** The first retry waits up to this long, each next one twice as long (default 50, jittered). */
  backoffMs?: number | undefined
  /** The longest backoff (default 1000). */
  maxBackoffMs?: number | undefined
  /**
   * The longest `retry-after` the gateway waits before trying the same upstream again (default
   * 5000); an upstream that asks for longer is not retried, only failed over from.
   */
  maxRetryAfterMs?: number | undefined
  /** The retry budget that keeps a dead upstream from multiplying load (`RetryBudgetSettings`). */
  budget?: RetryBudgetSettings | undefined
}

/**
 * The group's retry budget: over any `windowMs`, its retries may be at most `share` of its
 * requests, plus `minRetries` (so that a quiet gateway still retries).
 */
export type RetryBudgetSettings = {
  /** Retries as a share of requests (default 0.2). */
  share?: number | undefined
  /** Retries allowed per window whatever the traffic (default 3). */
  minRetries?: number | undefined
  /** The window the counts cover (default 10000 ms). */
  windowMs?: number | undefined
}

/** Retry settings with every default filled in. */
export type RetryPolicy = {
  attempts: number
  deadlineMs: number
  backoffMs: number
  maxBackoffMs: number
  maxRetryAfterMs: number
  budget: { share: number; minRetries: number; windowMs: number }
}

/** The defaults of `RetrySettings`, documented in the README. */
export const defaultRetryPolicy: RetryPolicy = Object.freeze({
  attempts: 3,
  deadlineMs: 60_000,
  backoffMs: 50,
  maxBackoffMs: 1000,
  maxRetryAfterMs: 5000,
  budget: Object.freeze({ share: 0.2, minRetries: 3, windowMs: 10_000 }),
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
