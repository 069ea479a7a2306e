/*
 * The shape of a group's `retry` settings, apart from the policy that resolves them so that the
 * routing table (`routing/group-registry.ts`) can name them without a cycle through `Group`.
 */

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
  /**
   * Retries allowed per window whatever the traffic (default 10: at least the circuit's
   * `consecutiveFailures`, so a quiet group finds a dead upstream dead by failing over, not by
   * failing its clients).
   */
  minRetries?: number | undefined
  /** The window the counts cover (default 10000 ms). */
  windowMs?: number | undefined
}
