import type { UsageRecord } from './usage-meter'

/**
 * A durable record of every request, beside the meter (which enforces limits): one `record` call
 * per settled request. `createPostgresLedger` from `model-gateway/postgres` is the built-in one.
 *
 * `record` runs on the request path, so it must return at once: queue the record and write it
 * later, never wait on I/O, never throw. The gateway's `close()` awaits `close`, which must write
 * (or loudly give up on) everything queued.
 *
 * @example
 * const ledger: UsageLedger = { record: (record) => queue.push(record), close: () => queue.drain() }
 */
export interface UsageLedger {
  record(record: UsageRecord): void
  close?(): Promise<void>
  /**
   * A key's totals per UTC day over the last `days` days (today included), oldest first, days
   * without requests left out: `GET /v1/usage` shows them as `daily`. Optional.
   */
  dailyUsage?(keyId: string, days: number): Promise<readonly DailyUsage[]>
}

/** One UTC day of a key's usage. */
export type DailyUsage = {
  /** `YYYY-MM-DD`, UTC. */
  date: string
  requests: number
  inputTokens: number
  outputTokens: number
  cachedInputTokens: number
  totalTokens: number
  /** What the day's priced requests cost (charged, nano-USD); absent from ledgers before prices. */
  costNanoUsd?: number | undefined
  /** Requests of the day on models without a price. */
  unpricedRequests?: number | undefined
  /** The day's response-cache hits and what they saved (nano-USD); absent before schema 6. */
  cacheHits?: number | undefined
  savedCostNanoUsd?: number | undefined
}
