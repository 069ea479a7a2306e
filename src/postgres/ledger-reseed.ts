import type { ReseedFunction } from '../usage/budget-seeds'
import type { PostgresLedger } from './ledger'

/**
 * Budgets from the ledger: what a key (or a team, the organisation, an end user) used in a budget period — tokens for a token budget,
 * nano-USD charged for a money budget — for a meter's `reseed`: the Redis meter's after Redis lost
 * a budget, the memory meter's when the process starts. This instance's queued rows are written
 * first; rows still queued on other instances (at most one flush interval of their traffic) are
 * not counted.
 *
 * @example
 * const ledger = createPostgresLedger(db)
 * const usageMeter = createMemoryUsageMeter({ reseed: ledgerReseed(ledger) })
 */
export function ledgerReseed(
  ledger: Pick<PostgresLedger, 'flush' | 'usedSince' | 'spentSince'>,
): ReseedFunction {
  return async (keyId, period) => {
    await ledger.flush()
    // A team's, the organisation's or an end user's budget counts that subject's requests.
    const subject = period.subject?.kind === 'key' ? undefined : period.subject
    return period.measure === 'nanoUsd'
      ? ledger.spentSince(keyId, period.startMs, subject)
      : ledger.usedSince(keyId, period.startMs, subject)
  }
}
