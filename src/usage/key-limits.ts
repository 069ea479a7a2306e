/**
 * Per-key limits: what they are called, what kind each is, and the UTC calendar periods of the
 * budgets. Shared by every meter, so that the memory meter and the Redis meter (whose Lua does the
 * same arithmetic) enforce the same rules.
 *
 * @module
 */
import type { KeyLimits } from '../auth/key-store'

/** A key's limits (`keys[].limits`, `KeyRecord.limits`): see `KeyLimits` in the key store. */
export type { KeyLimits }

/** What a key may spend: its limits and its lifetime token quota. */
export type KeyLimitSettings = {
  limits?: KeyLimits | undefined
  /** The lifetime `quota.tokens`; `undefined` is unlimited. */
  quotaTokens?: number | undefined
}

/** A limit that refills continuously over one minute. */
export type WindowLimitName = 'requestsPerMinute' | 'inputTokensPerMinute' | 'outputTokensPerMinute'
/** A token budget: per UTC day, per UTC month, or for the key's lifetime (`quota.tokens`). */
export type BudgetLimitName = 'tokensPerDay' | 'tokensPerMonth' | 'quota'
/** Every limit a meter enforces; `quota` is the lifetime `quota.tokens`. */
export type LimitName = WindowLimitName | 'concurrency' | BudgetLimitName

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

/** The period a budget counts over. */
export type BudgetPeriodKind = 'day' | 'month' | 'lifetime'

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
  return { windows, concurrency: limits?.concurrency, budgets }
}

/** True when a plan has nothing to enforce. */
export function isEmptyPlan(plan: LimitPlan): boolean {
  return plan.windows.length === 0 && plan.concurrency === undefined && plan.budgets.length === 0
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
 * ids in Lua from the server's clock (`src/redis/lua/periods.ts`); a test holds the two together.
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
