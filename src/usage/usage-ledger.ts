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
}
