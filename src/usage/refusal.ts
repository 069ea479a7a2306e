import { budgetLimitNames, moneyLimitNames, type LimitName } from './key-limits'
import type { LimitRefusal, ReserveResult } from './usage-meter'

const money = new Set<LimitName>(moneyLimitNames)
const budgets = new Set<LimitName>([...budgetLimitNames, ...moneyLimitNames])

/**
 * The refusal a meter answers when limits refused a request. A spent budget wins over a window or
 * a budget held by requests in flight (retrying soon cannot help it), and among several the
 * longest wait is the one to report: every limit must pass for the request to pass. A spent money
 * budget is `budget_exceeded`, a spent token budget `quota_exceeded`.
 */
export function refusalResult(refusals: readonly LimitRefusal[]): ReserveResult {
  const spent = refusals.filter((refusal) => budgets.has(refusal.name) && refusal.inFlight !== true)
  const candidates = spent.length > 0 ? spent : refusals
  let chosen = candidates[0]!
  for (const refusal of candidates) {
    if (refusal.retryAfterMs === undefined) {
      chosen = refusal
      break
    }
    if (chosen.retryAfterMs !== undefined && refusal.retryAfterMs > chosen.retryAfterMs) {
      chosen = refusal
    }
  }
  return {
    granted: false,
    reason:
      spent.length === 0
        ? 'rate_limited'
        : money.has(chosen.name)
          ? 'budget_exceeded'
          : 'quota_exceeded',
    retryAfterSeconds:
      chosen.retryAfterMs === undefined
        ? undefined
        : Math.max(1, Math.ceil(chosen.retryAfterMs / 1000)),
    refusal: chosen,
  }
}
