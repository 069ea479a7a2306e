import { nanoToUsd } from '../pricing/price-units'
import type { DailyUsage } from '../usage/usage-ledger'
import { moneyPeriodKinds, resetInstant, type MoneyLimitName } from '../usage/key-limits'
import type { KeyUsageSummary, LimitState } from '../usage/usage-meter'
import type { MoneyBudget } from '../auth/key-store'

const moneyNames = new Set<string>(Object.keys(moneyPeriodKinds))

/** Whether a limit state is a money budget's (its numbers are nano-USD). */
export function isMoneyState(state: LimitState): boolean {
  return moneyNames.has(state.name)
}

/**
 * The `spend` of `GET /v1/usage`: the key's priced requests together, in USD, and per period —
 * today and this month (UTC), from the key's money budgets when it has them (the meter's own
 * counts, shared by every instance), else from the ledger's days, else `null` — with the requests
 * on unpriced models counted apart (their spend is unknown, never 0).
 */
export function spendOf(
  summary: KeyUsageSummary,
  states: readonly LimitState[],
  days: readonly DailyUsage[] | null | undefined,
  now: number,
) {
  const used = (name: MoneyLimitName) => {
    const state = states.find((item) => item.name === name)
    return state?.used === undefined ? undefined : nanoToUsd(state.used)
  }
  const today = new Date(now).toISOString().slice(0, 10)
  const month = today.slice(0, 7)
  const fromLedger = (pick: (day: DailyUsage) => boolean) =>
    days === null || days === undefined
      ? null
      : nanoToUsd(days.filter(pick).reduce((sum, day) => sum + (day.costNanoUsd ?? 0), 0))
  return {
    currency: 'USD',
    total_usd: summary.costNanoUsd === undefined ? null : nanoToUsd(summary.costNanoUsd),
    day_usd: used('usdPerDay') ?? fromLedger((day) => day.date === today),
    month_usd: used('usdPerMonth') ?? fromLedger((day) => day.date.startsWith(month)),
    unpriced_requests: summary.unpricedRequests ?? null,
    // What the response cache's hits saved (the original calls' cost); null from a meter that
    // does not count hits.
    saved_usd: summary.savedCostNanoUsd === undefined ? null : nanoToUsd(summary.savedCostNanoUsd),
  }
}

/**
 * The `budget` of `GET /v1/usage`: each money budget of the key with its limit, what the period
 * used and what requests in flight hold, what is left, and when it resets; `null` without one.
 */
export function budgetsOf(
  budgets: readonly MoneyBudget[] | undefined,
  states: readonly LimitState[],
  now: number,
) {
  if (budgets === undefined || budgets.length === 0) return null
  return states.filter(isMoneyState).map((state) => {
    const per = moneyPeriodKinds[state.name as MoneyLimitName]
    const budget = budgets.find((item) => item.per === per)
    return {
      per,
      limit_usd: nanoToUsd(state.limit),
      used_usd: nanoToUsd(state.used ?? 0),
      reserved_usd: nanoToUsd(state.reserved ?? 0),
      remaining_usd: nanoToUsd(state.remaining),
      reset_at: state.resetInMs === undefined ? null : resetInstant(now, state.resetInMs),
      alert_at_usd:
        budget?.alertAt === undefined ? null : nanoToUsd(Math.round(state.limit * budget.alertAt)),
    }
  })
}
