/** A key's totals over a span; spend in nano-USD (`null` where no ledger reports it). */
export type Totals = {
  requests: number
  inputTokens: number
  outputTokens: number
  totalTokens: number
  costNanoUsd: number | null
  unpricedRequests: number | null
}

export type MoneyBudget = { usd: number; per: 'day' | 'month' | 'lifetime'; alertAt?: number }

export type LimitState = {
  name: string
  limit: number
  remaining: number
  used?: number
  resetInMs?: number
}

/** A row of the keys page, as `GET <mount>/api/keys` gives it. */
export type KeyRow = {
  id: string
  name: string
  masked: string
  source: 'config' | 'postgres' | 'memory'
  status: 'active' | 'revoked' | 'expired' | 'disabled'
  groups: string[] | null
  expiresAt: string | null
  quotaTokens: number | null
  limits: Record<string, number>
  budget: MoneyBudget[]
  priceMultiplier: number | null
  createdAt: string | null
  usage: { today: Totals | null; month: Totals | null; lifetime: Totals | null }
  limitStates: LimitState[]
  lastUsedAt: number | null
}

export type KeysPageData = {
  baseUrl: string
  canEdit: boolean
  store: 'postgres' | 'memory' | null
  usageSource: 'ledger' | 'meter'
  groups: string[]
  periods: { today: string; monthStart: string }
  keys: KeyRow[]
  organisation: {
    today: Totals | null
    month: Totals | null
    budget: {
      usd: number
      per: 'day' | 'month'
      spentUsd: number | null
      leftUsd: number | null
    } | null
    balance:
      | { usd: number; since: string; spentUsd: number | null; leftUsd: number | null }
      | { usd: number; asOf: string | null; leftUsd: number }
      | null
  } | null
}

/** The limits a key form edits, in the order it shows them. */
export const limitFields = [
  ['requestsPerMinute', 'Requests per minute'],
  ['inputTokensPerMinute', 'Input tokens per minute'],
  ['outputTokensPerMinute', 'Output tokens per minute'],
  ['concurrency', 'Requests at once'],
  ['tokensPerDay', 'Tokens per UTC day'],
  ['tokensPerMonth', 'Tokens per UTC month'],
] as const

/** The periods a key's money budget may have, in the order the form shows them. */
export const budgetPeriods = [
  ['day', 'Budget per UTC day (USD)'],
  ['month', 'Budget per UTC month (USD)'],
  ['lifetime', 'Budget in all (USD)'],
] as const
