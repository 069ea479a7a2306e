import type { ReseedFunction } from '../usage/budget-seeds'
import type { MeteredSubjectRef } from '../usage/usage-meter'
import type { PostgresLedger } from './ledger'

/**
 * What a ledger that records teams and end users (`UsageRecord.team`, `endUser`) counts for them:
 * the same sums as `usedSince`/`spentSince`, over a subject's requests instead of a key's.
 */
export type SubjectLedger = {
  usedBySubjectSince?(subject: MeteredSubjectRef, startMs: number): Promise<number>
  spentBySubjectSince?(subject: MeteredSubjectRef, startMs: number): Promise<number>
}

/**
 * Budgets from the ledger: what a key used in a budget period — tokens for a token budget,
 * nano-USD charged for a money budget — for a meter's `reseed`: the Redis meter's after Redis lost
 * a budget, the memory meter's when the process starts. This instance's queued rows are written
 * first; rows still queued on other instances (at most one flush interval of their traffic) are
 * not counted.
 *
 * A team's, the organisation's or an end user's budget (`period.subject`) is counted by the
 * ledger's subject sums when it has them; a ledger without them answers 0 for such a subject —
 * never a key's sum under the subject's id, which could be another key's spend.
 *
 * @example
 * const ledger = createPostgresLedger(db)
 * const usageMeter = createMemoryUsageMeter({ reseed: ledgerReseed(ledger) })
 */
export function ledgerReseed(
  ledger: Pick<PostgresLedger, 'flush' | 'usedSince' | 'spentSince'> & SubjectLedger,
): ReseedFunction {
  return async (keyId, period) => {
    await ledger.flush()
    const subject = period.subject
    const money = period.measure === 'nanoUsd'
    if (subject !== undefined && subject.kind !== 'key') {
      const sum = money ? ledger.spentBySubjectSince : ledger.usedBySubjectSince
      return sum === undefined ? 0 : sum.call(ledger, subject, period.startMs)
    }
    return money
      ? ledger.spentSince(keyId, period.startMs)
      : ledger.usedSince(keyId, period.startMs)
  }
}
