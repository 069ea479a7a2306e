/**
 * Per-key limits: what they are called, what kind each is, and the UTC calendar periods of the
 * budgets. Shared by every meter, so that the memory meter and the Redis meter (whose Lua does the
 * same arithmetic) enforce the same rules.
 *
 * @module
 */
import type { KeyLimits, MoneyBudget } from '../auth/key-store'
import { usdToNano } from '../pricing/price-units'

/** A key's limits (`keys[].limits`, `KeyRecord.limits`): see `KeyLimits` in the key store. */
export type { KeyLimits }

/** What a key may spend: its limits, its lifetime token quota and its money budgets. */
export type KeyLimitSettings = {
  limits?: KeyLimits | undefined
  /** The lifetime `quota.tokens`; `undefined` is unlimited. */
  quotaTokens?: number | undefined
  /** Money budgets (`keys[].budget`); at most one per period. */
  budgets?: readonly MoneyBudget[] | undefined
}

/** A limit that refills continuously over one minute. */
export type WindowLimitName = 'requestsPerMinute' | 'inputTokensPerMinute' | 'outputTokensPerMinute'
/** A token budget: per UTC day, per UTC month, or for the key's lifetime (`quota.tokens`). */
export type BudgetLimitName = 'tokensPerDay' | 'tokensPerMonth' | 'quota'
/**
 * A money budget (`keys[].budget`), per UTC day, per UTC month or for the key's lifetime. Its
 * limit state counts nano-USD (10⁻⁹ USD) where token budgets count tokens.
 */
export type MoneyLimitName = 'usdPerDay' | 'usdPerMonth' | 'usdLifetime'
/** Every limit a meter enforces; `quota` is the lifetime `quota.tokens`. */
export type LimitName = WindowLimitName | 'concurrency' | BudgetLimitName | MoneyLimitName

/** The window limits, in the order meters check and report them. */
export const windowLimitNames: readonly WindowLimitName[] = [
  'requestsPerMinute',
  'inputTokensPerMinute',
  'outputTokensPerMinute',
]
/** The budgets, in the order meters check and report them. */
export const budgetLimitNames: readonly BudgetLimitName[] = [
  'tokensPerDay',
  'tokensPerMonth',
  'quota',
]

/** The money budgets, in the order meters check and report them. */
export const moneyLimitNames: readonly MoneyLimitName[] = [
  'usdPerDay',
  'usdPerMonth',
  'usdLifetime',
]

/** The period a budget counts over. */
export type BudgetPeriodKind = 'day' | 'month' | 'lifetime'

/** The period of each money budget. */
export const moneyPeriodKinds: Readonly<Record<MoneyLimitName, BudgetPeriodKind>> = {
  usdPerDay: 'day',
  usdPerMonth: 'month',
  usdLifetime: 'lifetime',
}

const moneyNameOf: Readonly<Record<BudgetPeriodKind, MoneyLimitName>> = {
  day: 'usdPerDay',
  month: 'usdPerMonth',
  lifetime: 'usdLifetime',
}

/** Any budget, of tokens or money. */
export type AnyBudgetName = BudgetLimitName | MoneyLimitName

/** The period a token or money budget counts over. */
export function periodKindOf(name: AnyBudgetName): BudgetPeriodKind {
  return name.startsWith('usd')
    ? moneyPeriodKinds[name as MoneyLimitName]
    : budgetPeriodKinds[name as BudgetLimitName]
}

/** A key's money budgets as a list (`keys[].budget` takes one or several). */
export function moneyBudgetsOf(
  budget: MoneyBudget | readonly MoneyBudget[] | undefined,
): readonly MoneyBudget[] | undefined {
  if (budget === undefined) return undefined
  return Array.isArray(budget) ? (budget as readonly MoneyBudget[]) : [budget as MoneyBudget]
}

/** The period of each budget. */
export const budgetPeriodKinds: Readonly<Record<BudgetLimitName, BudgetPeriodKind>> = {
  tokensPerDay: 'day',
  tokensPerMonth: 'month',
  quota: 'lifetime',
}

/** Every window refills over this many milliseconds. */
export const windowMs = 60_000

/** A key's limits, normalised: only the ones that apply. */
export type LimitPlan = {
  windows: { name: WindowLimitName; limit: number }[]
  concurrency: number | undefined
  budgets: { name: BudgetLimitName; limit: number }[]
  /** Money budgets in nano-USD, in `moneyLimitNames` order; `alertAt` in nano-USD too. */
  money: { name: MoneyLimitName; limit: number; alertAt: number | undefined }[]
}

/** The limits that apply to a key, in check order. */
export function planLimits(settings: KeyLimitSettings | undefined): LimitPlan {
  const limits = settings?.limits
  const windows: LimitPlan['windows'] = []
  for (const name of windowLimitNames) {
    const limit = limits?.[name]
    if (limit !== undefined) windows.push({ name, limit })
  }
  const budgets: LimitPlan['budgets'] = []
  for (const name of budgetLimitNames) {
    const limit = name === 'quota' ? settings?.quotaTokens : limits?.[name]
    if (limit !== undefined) budgets.push({ name, limit })
  }
  const money: LimitPlan['money'] = []
  for (const budget of settings?.budgets ?? []) {
    const limit = usdToNano(budget.usd)
    money.push({
      name: moneyNameOf[budget.per],
      limit,
      alertAt: budget.alertAt === undefined ? undefined : Math.round(limit * budget.alertAt),
    })
  }
  money.sort((a, b) => moneyLimitNames.indexOf(a.name) - moneyLimitNames.indexOf(b.name))
  return { windows, concurrency: limits?.concurrency, budgets, money }
}

/** True when a plan has nothing to enforce. */
export function isEmptyPlan(plan: LimitPlan): boolean {
  return (
    plan.windows.length === 0 &&
    plan.concurrency === undefined &&
    plan.budgets.length === 0 &&
    plan.money.length === 0
  )
}

/** One UTC calendar period. `id` is the day number since the epoch, `year * 12 + month`, or 0. */
export type BudgetPeriod = {
  kind: BudgetPeriodKind
  id: number
  startMs: number
  /** `undefined` for the lifetime period, which never ends. */
  endMs: number | undefined
}

const dayMs = 86_400_000

/**
 * The UTC calendar period of a budget kind that contains `nowMs`. The Redis meter computes the same
 * ids in Lua from the server's clock (`src/redis/lua/usage-prelude.ts`); a test holds the two together.
 */
export function budgetPeriod(kind: BudgetPeriodKind, nowMs: number): BudgetPeriod {
  switch (kind) {
    case 'day': {
      const id = Math.floor(nowMs / dayMs)
      return { kind, id, startMs: id * dayMs, endMs: (id + 1) * dayMs }
    }
    case 'month': {
      const date = new Date(nowMs)
      const year = date.getUTCFullYear()
      const month = date.getUTCMonth()
      return {
        kind,
        id: year * 12 + month,
        startMs: Date.UTC(year, month, 1),
        endMs: Date.UTC(year, month + 1, 1),
      }
    }
    case 'lifetime':
      return { kind, id: 0, startMs: 0, endMs: undefined }
    default: {
      const unknown: never = kind
      throw new Error(`Unknown budget period ${String(unknown)}`)
    }
  }
}

/**
 * When a budget's period ends, as ISO 8601 to the second: periods end at UTC midnight, and the
 * meter's clock (Redis's, for a shared meter) and this one's may differ by a few milliseconds.
 */
export function resetInstant(now: number, waitMs: number): string {
  return new Date(Math.round((now + waitMs) / 1000) * 1000).toISOString()
}
