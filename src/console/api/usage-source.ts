import { hasUsageReports, type UsageReports } from '../../usage/usage-report'
import type { ConsoleDeps } from '../server/context'

/**
 * Where usage per day, model and key is read: the console's `usage` option, else the gateway's
 * ledger when it offers reports (the memory ledger, the Postgres one through `postgres`);
 * `undefined` when only the meter's totals are known.
 */
export function usageReportsOf(deps: ConsoleDeps): UsageReports | undefined {
  if (deps.usage !== undefined) return deps.usage
  const ledger = deps.gateway.runtime.ledger
  return hasUsageReports(ledger) ? ledger : undefined
}

/** `YYYY-MM-DD` of an instant, in UTC. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** Today and the first day of this month, UTC. */
export function currentPeriods(now: number): { today: string; monthStart: string } {
  const today = utcDay(now)
  return { today, monthStart: `${today.slice(0, 8)}01` }
}
