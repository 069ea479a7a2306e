import type { BudgetPeriodKind } from './key-limits'

/**
 * A key's spend crossed a budget's alert threshold (`keys[].budget.alertAt`): raised once per
 * budget period, by the request whose settle crossed it — with a shared meter, on one instance
 * only, since the crossing is decided in the same atomic step that adds the spend. Given to the
 * config's `onBudgetAlert`; nothing is refused (the budget itself still is the limit).
 */
export type BudgetAlert = {
  keyId: string
  /** The key's name, when it has one. */
  keyName?: string | undefined
  per: BudgetPeriodKind
  /** The budget, and the threshold that was crossed, in USD. */
  limitUsd: number
  alertAtUsd: number
  /** Spent in the period once the request was counted, in USD (and exactly, in nano-USD). */
  spentUsd: number
  spentNanoUsd: number
  /** When the period ends (ISO 8601, UTC); `null` for a lifetime budget. */
  resetAt: string | null
  /** The request that crossed it. */
  requestId: string
}
