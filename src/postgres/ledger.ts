import type { DailyUsage, UsageLedger } from '../usage/usage-ledger'
import type { MeteredSubjectRef, UsageRecord } from '../usage/usage-meter'
import type { PostgresOptions } from './client'
import {
  ensurePartitionSql,
  insertBatchSql,
  toLedgerRow,
  utcMonth,
  type LedgerRow,
} from './ledger-sql'
import { dailyUsage } from './key-usage'
import { sumSince } from './ledger-sums'
import { createLoudLog, describeError } from './loud-log'
import { isConnectionError, isDataError } from './pg-errors'
import { resolveTables } from './tables'

/** Options of `createPostgresLedger`. */
export type PostgresLedgerOptions = PostgresOptions & {
  /** Longest a record waits in the queue before a write (default 1000 ms). */
  flushIntervalMs?: number | undefined
  /** Rows per INSERT; a queue this long is written at once (default 500). */
  batchSize?: number | undefined
  /** Most records held in memory while Postgres is slow or down (default 100000). */
  maxQueue?: number | undefined
  /** How long `close()` keeps trying to write what is queued (default 8000 ms). */
  drainTimeoutMs?: number | undefined
  /** First retry delay after a failed write, doubled up to `retryMaxMs` (default 250 ms). */
  retryMinMs?: number | undefined
  /** Longest retry delay (default 30000 ms). */
  retryMaxMs?: number | undefined
  now?: (() => number) | undefined
}

/** Counters of a ledger since it started. */
export type LedgerStats = {
  /** Records waiting to be written. */
  queued: number
  /** Rows written (a replayed request id counts once). */
  written: number
  /** Records refused because the queue was full, or arrived after `close()` finished. */
  dropped: number
  /** Records Postgres refused as data (logged with their request id). */
  rejected: number
  /** Records still queued when `close()` gave up. */
  lost: number
  /** Writes that failed and were retried. */
  failedWrites: number
}

/** The Postgres usage ledger. */
export type PostgresLedger = UsageLedger & {
  /** Writes everything queued now; resolves when the queue is empty or a write failed. */
  flush(): Promise<void>
  /** Stops the timer and writes everything queued, retrying until `drainTimeoutMs`. */
  close(): Promise<void>
  stats(): LedgerStats
  /**
   * Tokens of a key's requests that ended at or after `sinceMs`, by the rows in Postgres: the
   * daily rollup for whole UTC days and the ledger for the part of a day before them. What budgets
   * re-seed from after the shared meter lost its state (`reseed: (keyId, period) =>
   * ledger.usedSince(keyId, period.startMs)`). Rows still queued on some instance (at most
   * `flushIntervalMs` of its traffic) are not counted yet.
   */
  usedSince(keyId: string, sinceMs: number): Promise<number>
  /**
   * What a key's priced requests that ended at or after `sinceMs` were charged, in nano-USD, by
   * the same rows: what money budgets re-seed from. Unpriced requests (and rows from before
   * prices, schema version 3) add nothing.
   */
  spentSince(keyId: string, sinceMs: number): Promise<number>
  /**
   * Tokens of a team's, the organisation's or an end user's requests that ended at or after
   * `sinceMs` (the rows carry the team and end user from schema version 4): what their budgets
   * re-seed from (`ledgerReseed`). A team's and the organisation's are read from the rollups
   * for whole days; an end user's from its key's ledger rows.
   */
  usedBySubjectSince(subject: MeteredSubjectRef, sinceMs: number): Promise<number>
  /** The same in nano-USD charged: what the subject's money budgets re-seed from. */
  spentBySubjectSince(subject: MeteredSubjectRef, sinceMs: number): Promise<number>
  /** A key's totals per UTC day from the daily rollup (`GET /v1/usage`'s `daily`). */
  dailyUsage(keyId: string, days: number): Promise<DailyUsage[]>
}

const dayMs = 86_400_000

/**
 * A usage ledger in Postgres: one row per request, keyed by request id, with a daily rollup per
 * key and model. `record` only queues (the request path never waits on the database); a timer
 * writes the queue every `flushIntervalMs`, or at once when `batchSize` rows wait, one multi-row
 * INSERT per batch.
 *
 * - **Failures**: a failed write leaves its rows queued (they are removed only once committed) and
 *   is retried with exponential backoff; replays are harmless (`ON CONFLICT DO NOTHING`). A row
 *   Postgres refuses as data is isolated by halving the batch and dropped with a log line naming its
 *   request id, so one bad row cannot hold up the rest.
 * - **Full queue**: past `maxQueue` records new ones are dropped, never blocking a request; each
 *   drop is counted in `stats().dropped` and logged (at once, then at most every 10 s).
 * - **Shutdown**: `close()` writes everything queued, retrying until `drainTimeoutMs`; whatever is
 *   left is counted in `stats().lost` and logged. The gateway's `close()` awaits it.
 */
export function createPostgresLedger(options: PostgresLedgerOptions): PostgresLedger {
  const tables = resolveTables(options)
  const now = options.now ?? Date.now
  const flushIntervalMs = options.flushIntervalMs ?? 1000
  const batchSize = Math.max(1, options.batchSize ?? 500)
  const maxQueue = options.maxQueue ?? 100_000
  const retryMinMs = options.retryMinMs ?? 250
  const retryMaxMs = options.retryMaxMs ?? 30_000
  const insertSql = insertBatchSql(tables)
  const logDrop = createLoudLog(10_000, now)
  const logFailure = createLoudLog(10_000, now)
  const logPartition = createLoudLog(10_000, now)
  const knownMonths = new Set<string>()
  const queue: LedgerRow[] = []
  const stats = { written: 0, dropped: 0, rejected: 0, lost: 0, failedWrites: 0 }
  let failures = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  let timerDue = Infinity
  let writing: Promise<boolean> | undefined
  let closing = false
  let closed = false
  let closePromise: Promise<void> | undefined

  const schedule = (delayMs: number) => {
    if (closing) return
    const due = now() + delayMs
    if (timer !== undefined && timerDue <= due) return
    clearTimeout(timer)
    timerDue = due
    timer = setTimeout(() => {
      timer = undefined
      timerDue = Infinity
      void flush()
    }, delayMs)
    ;(timer as { unref?: () => void }).unref?.()
  }

  const ensurePartitions = async (rows: readonly LedgerRow[]) => {
    const months = new Set(rows.map((row) => utcMonth(row.started_at_ms)))
    // Next month's partition is made ahead, so that midnight of the 1st finds it ready.
    months.add(utcMonth(now() + 32 * dayMs - (now() % dayMs)))
    for (const month of months) {
      if (knownMonths.has(month)) continue
      try {
        await options.client.query(ensurePartitionSql(tables, month))
        knownMonths.add(month)
      } catch (error) {
        if (isConnectionError(error)) throw error
        // Refused by the server (no privilege, rows already in the default partition): the
        // default partition takes the rows meanwhile, so nothing is lost, only the layout.
        logPartition(`cannot create the usage ledger partition for ${month}`, error)
      }
    }
  }

  /** Inserts rows; a data error is narrowed down by halving, and the bad row dropped. */
  const insert = async (rows: LedgerRow[]): Promise<void> => {
    try {
      const { rows: result } = await options.client.query(insertSql, [JSON.stringify(rows)])
      stats.written += Number(result[0]?.inserted ?? 0)
    } catch (error) {
      if (!isDataError(error)) throw error
      if (rows.length === 1) {
        stats.rejected += 1
        console.error(
          `[model-gateway] usage ledger: Postgres refused the row of request ${rows[0]!.request_id}; it is dropped:`,
          describeError(error),
        )
        return
      }
      const half = Math.ceil(rows.length / 2)
      await insert(rows.slice(0, half))
      await insert(rows.slice(half))
    }
  }

  /** Writes one batch from the head of the queue; false when the write failed. */
  const writeBatch = async (): Promise<boolean> => {
    const batch = queue.slice(0, batchSize)
    if (batch.length === 0) return true
    try {
      await ensurePartitions(batch)
      await insert(batch)
      // Removed only now that they are committed: a failure above leaves them queued.
      queue.splice(0, batch.length)
      failures = 0
      return true
    } catch (error) {
      failures += 1
      stats.failedWrites += 1
      logFailure(
        `usage ledger: writing ${batch.length} rows to Postgres failed; ${queue.length} queued, retrying`,
        error,
      )
      return false
    }
  }

  const retryDelay = () => {
    const base = Math.min(retryMaxMs, retryMinMs * 2 ** Math.min(failures - 1, 20))
    return Math.round(base * (0.8 + Math.random() * 0.4))
  }

  /** Writes batches until the queue is empty or one fails; one writer at a time. */
  const drainOnce = (): Promise<boolean> => {
    if (writing !== undefined) return writing
    const current = (async () => {
      while (queue.length > 0) {
        if (!(await writeBatch())) return false
      }
      return true
    })()
    writing = current
    // Cleared once settled, never before it is set: on an empty queue the body above finishes
    // synchronously, and a `finally` inside it would run before this assignment, leaving a
    // settled promise that every later drain would return without writing.
    void current.finally(() => {
      if (writing === current) writing = undefined
    })
    return current
  }

  const flush = async (): Promise<void> => {
    const ok = await drainOnce()
    if (!ok) schedule(retryDelay())
    else if (queue.length > 0) schedule(flushIntervalMs)
  }

  return {
    record(record: UsageRecord) {
      if (closed || queue.length >= maxQueue) {
        stats.dropped += 1
        logDrop(
          closed
            ? `usage ledger: a record arrived after close() and is dropped (request ${record.requestId}); ${stats.dropped} dropped in all`
            : `usage ledger queue is full (${maxQueue} records): request ${record.requestId} is not recorded; ${stats.dropped} dropped in all`,
        )
        return
      }
      queue.push(toLedgerRow(record))
      if (failures > 0) return
      if (queue.length >= batchSize) schedule(0)
      else schedule(flushIntervalMs)
    },
    flush,
    close() {
      closePromise ??= (async () => {
        closing = true
        clearTimeout(timer)
        const deadline = now() + (options.drainTimeoutMs ?? 8000)
        while (queue.length > 0 && now() < deadline) {
          let deadlineTimer: ReturnType<typeof setTimeout> | undefined
          const ok = await Promise.race([
            drainOnce(),
            new Promise<false>((resolve) => {
              deadlineTimer = setTimeout(() => resolve(false), deadline - now())
            }),
          ])
          clearTimeout(deadlineTimer)
          if (!ok && queue.length > 0) await sleep(Math.min(retryDelay(), deadline - now()))
        }
        closed = true
        if (queue.length > 0) {
          stats.lost += queue.length
          console.error(
            `[model-gateway] usage ledger: ${queue.length} records could not be written to Postgres before shutdown and are lost`,
          )
          queue.length = 0
        }
      })()
      return closePromise
    },
    stats: () => ({ queued: queue.length, ...stats }),
    dailyUsage: (keyId, days) => dailyUsage(options, keyId, days, now()),
    usedSince: (keyId, sinceMs) => sumSince(options.client, tables, 'total_tokens', keyId, sinceMs),
    spentSince: (keyId, sinceMs) => sumSince(options.client, tables, 'cost_nano', keyId, sinceMs),
    usedBySubjectSince: (subject, sinceMs) =>
      sumSince(options.client, tables, 'total_tokens', subject.keyId ?? '', sinceMs, subject),
    spentBySubjectSince: (subject, sinceMs) =>
      sumSince(options.client, tables, 'cost_nano', subject.keyId ?? '', sinceMs, subject),
  }
}

/**
 * A pause. Not unref'd: while `close()` waits to retry, this timer is what keeps Node from exiting
 * with rows still queued.
 */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
}
