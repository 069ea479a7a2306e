import type { ReseedFunction } from '../../src/redis/index'
import { budgetPeriod } from '../../src/usage/key-limits'
import { settleRetries } from '../../src/usage/settle-retries'
import type { UsageMeter } from '../../src/usage/usage-meter'

/**
 * A durable usage ledger in the test's memory, standing in for the PostgreSQL one: one row per
 * settled request, written after the meter's settle has returned (the order the re-seed contract
 * asks for: a row is never visible before its Redis settle was applied or given up). `reseed`
 * sums a key's rows that ended in the period, as the ledger's implementation does.
 */
export function createTestLedger(now: () => number = Date.now) {
  const rows: { keyId: string; endedAt: number; totalTokens: number }[] = []
  const reseeds: { keyId: string; kind: string; tokens: number }[] = []
  const reseed: ReseedFunction = async (keyId, period) => {
    const end = budgetPeriod(period.kind, period.startMs).endMs ?? Infinity
    let tokens = 0
    for (const row of rows) {
      if (row.keyId === keyId && row.endedAt >= period.startMs && row.endedAt < end) {
        tokens += row.totalTokens
      }
    }
    reseeds.push({ keyId, kind: period.kind, tokens })
    return tokens
  }
  return {
    rows,
    reseeds,
    reseed,
    /** The meter, writing one ledger row after each settle. */
    wrap(meter: UsageMeter): UsageMeter {
      return {
        reserve: (request) => meter.reserve(request),
        async settle(reservation, record) {
          const result = await meter.settle(reservation, record)
          // The gateway's order: the row once the settle's background retries have ended too.
          await settleRetries(
            result,
            () => undefined,
            () => undefined,
          )
          rows.push({
            keyId: record.keyId,
            endedAt: now(),
            totalTokens: record.usage?.totalTokens ?? 0,
          })
        },
        release: (reservation) => meter.release(reservation),
        extend: (reservation) => meter.extend?.(reservation),
        // A wrapper forwards drain(), or close() waits out the retries of the wrapped meter.
        drain: () => meter.drain?.(),
        summary: (keyId, settings) => meter.summary(keyId, settings),
      }
    },
    total: (keyId: string) =>
      rows.filter((row) => row.keyId === keyId).reduce((sum, row) => sum + row.totalTokens, 0),
  }
}
