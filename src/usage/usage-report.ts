import type { UsageRecord } from './usage-meter'

/** Requests, tokens and spend over a span. */
export type UsageTotals = {
  requests: number
  errorRequests: number
  abortedRequests: number
  inputTokens: number
  outputTokens: number
  cachedInputTokens: number
  cacheWriteInputTokens: number
  cacheWrite1hInputTokens: number
  reasoningTokens: number
  totalTokens: number
  /** What the priced requests were charged, nano-USD (10⁻⁹ USD). */
  costNanoUsd: number
  /** The same at list price, before any `priceMultiplier`. */
  listCostNanoUsd: number
  /** Requests on models without a price (their spend is unknown, never 0). */
  unpricedRequests: number
  /** Requests answered from the response cache (`UsageRecord.cached`); counted in `requests` too. */
  cacheHits: number
  /** What those hits saved: the original calls' cost (`UsageRecord.savedCost`), nano-USD. */
  savedCostNanoUsd: number
}

/**
 * Usage over a span of UTC days, from a ledger's daily rollup: per day and model, per day, per
 * model, per key, per routing group, and in all. What the console charts, in one read.
 */
export type UsageReport = {
  /** First and last UTC day of the span, `YYYY-MM-DD`, inclusive. */
  since: string
  until: string
  rows: Array<{ day: string; model: string } & UsageTotals>
  days: Array<{ day: string } & UsageTotals>
  models: Array<{ model: string } & UsageTotals>
  keys: Array<{ keyId: string } & UsageTotals>
  /**
   * Per routing group (`UsageRecord.groupId`: the group that answered, a fallback's when one did),
   * model calls only (MCP tool calls are in no group), most spend first. Absent where the source
   * cannot tell: one team's report on PostgreSQL (its rollup has no group), reports of ledgers
   * that predate it.
   */
  groups?: Array<{ groupId: string } & UsageTotals> | undefined
  totals: UsageTotals
}

/** What a usage report covers: a span of UTC days, and one key or all of them. */
export type UsageQuery = {
  /** `YYYY-MM-DD`, UTC, inclusive. */
  since: string
  until: string
  keyId?: string | undefined
  /** Only the requests of this team's keys (`UsageRecord.team`). */
  team?: string | undefined
  /** Only the requests made for this end user (`UsageRecord.endUser`); give `keyId` with it. */
  endUser?: string | undefined
}

/**
 * Reports over a ledger's daily rollup: what the console reads. The memory ledger
 * (`createMemoryUsageLedger`) and `createPostgresUsageReports` (`model-gateway/postgres`) are
 * the built-in ones.
 */
export interface UsageReports {
  /** Usage over the span, per day and model, per key and in all. */
  usageReport(query: UsageQuery): Promise<UsageReport>
  /** When each key last made a request (epoch ms), for the keys that made one. */
  lastUsed(keyIds: readonly string[]): Promise<ReadonlyMap<string, number>>
}

/** Whether a ledger (or anything) offers reports. */
export function hasUsageReports(value: unknown): value is UsageReports {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<UsageReports>).usageReport === 'function' &&
    typeof (value as Partial<UsageReports>).lastUsed === 'function'
  )
}

const totalNames = [
  'requests',
  'errorRequests',
  'abortedRequests',
  'inputTokens',
  'outputTokens',
  'cachedInputTokens',
  'cacheWriteInputTokens',
  'cacheWrite1hInputTokens',
  'reasoningTokens',
  'totalTokens',
  'costNanoUsd',
  'listCostNanoUsd',
  'unpricedRequests',
  'cacheHits',
  'savedCostNanoUsd',
] as const satisfies ReadonlyArray<keyof UsageTotals>

/** Totals of nothing. */
export function emptyTotals(): UsageTotals {
  return {
    requests: 0,
    errorRequests: 0,
    abortedRequests: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    cacheWrite1hInputTokens: 0,
    reasoningTokens: 0,
    totalTokens: 0,
    costNanoUsd: 0,
    listCostNanoUsd: 0,
    unpricedRequests: 0,
    cacheHits: 0,
    savedCostNanoUsd: 0,
  }
}

/** Adds the counts of `more` into `totals`, field by field (other fields stay as they are). */
export function addTotals<T extends UsageTotals>(totals: T, more: UsageTotals): T {
  for (const name of totalNames) totals[name] += more[name]
  return totals
}

/**
 * One settled request as totals: counted once, tokens as recorded (none when unreported), its
 * cost when its model is priced, else counted as unpriced (a record of a meter that predates
 * prices, with no `cost` at all, is neither).
 */
export function recordTotals(record: UsageRecord): UsageTotals {
  const usage = record.usage
  const cost = record.cost
  return {
    requests: 1,
    errorRequests: record.outcome === 'error' ? 1 : 0,
    abortedRequests: record.outcome === 'aborted' ? 1 : 0,
    inputTokens: usage?.inputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    cachedInputTokens: usage?.cachedInputTokens ?? 0,
    cacheWriteInputTokens: usage?.cacheWriteInputTokens ?? 0,
    cacheWrite1hInputTokens: usage?.cacheWrite1hInputTokens ?? 0,
    reasoningTokens: usage?.reasoningTokens ?? 0,
    totalTokens: usage?.totalTokens ?? 0,
    costNanoUsd: cost?.nanoUsd ?? 0,
    listCostNanoUsd: cost?.listNanoUsd ?? 0,
    unpricedRequests: cost === null ? 1 : 0,
    cacheHits: record.cached === true ? 1 : 0,
    savedCostNanoUsd: record.cached === true ? (record.savedCost?.nanoUsd ?? 0) : 0,
  }
}

/**
 * A report built from rollup rows of one span: grouped by day, by model, by key and by routing
 * group (rows without a `groupId`, MCP tool calls, are in none); days in order, models, keys and
 * groups by spend (most first), then by name — as `organisationUsage` orders them.
 */
export function reportOf(
  since: string,
  until: string,
  rows: ReadonlyArray<
    { keyId: string; day: string; model: string; groupId?: string | undefined } & UsageTotals
  >,
): UsageReport {
  const byDayModel = new Map<string, { day: string; model: string } & UsageTotals>()
  const byKey = new Map<string, { keyId: string } & UsageTotals>()
  const byGroup = new Map<string, { groupId: string } & UsageTotals>()
  for (const row of rows) {
    const { keyId, day, model, groupId } = row
    const dayModel = `${day}\u0000${model}`
    addTotals(
      getOr(byDayModel, dayModel, () => ({ day, model, ...emptyTotals() })),
      row,
    )
    addTotals(
      getOr(byKey, keyId, () => ({ keyId, ...emptyTotals() })),
      row,
    )
    if (groupId !== undefined) {
      addTotals(
        getOr(byGroup, groupId, () => ({ groupId, ...emptyTotals() })),
        row,
      )
    }
  }
  return {
    ...assembleReport(since, until, [...byDayModel.values()], [...byKey.values()]),
    groups: bySpend([...byGroup.values()], (group) => group.groupId),
  }
}

/** Rows by spend (most first), then by name. */
function bySpend<T extends UsageTotals>(rows: T[], nameOf: (row: T) => string): T[] {
  return rows.sort((a, b) => b.costNanoUsd - a.costNanoUsd || nameOf(a).localeCompare(nameOf(b)))
}

/**
 * A report from its two groupings, totals per day and model and per key (as one SQL read with
 * grouping sets gives them): days, models and the span's totals are added up from the first.
 */
export function assembleReport(
  since: string,
  until: string,
  dayModelRows: ReadonlyArray<{ day: string; model: string } & UsageTotals>,
  keyRows: ReadonlyArray<{ keyId: string } & UsageTotals>,
): UsageReport {
  const byDay = new Map<string, { day: string } & UsageTotals>()
  const byModel = new Map<string, { model: string } & UsageTotals>()
  const totals = emptyTotals()
  for (const row of dayModelRows) {
    const { day, model, ...counts } = row
    addTotals(
      getOr(byDay, day, () => ({ day, ...emptyTotals() })),
      counts,
    )
    addTotals(
      getOr(byModel, model, () => ({ model, ...emptyTotals() })),
      counts,
    )
    addTotals(totals, counts)
  }
  const byText =
    <T>(of: (item: T) => string) =>
    (a: T, b: T) =>
      of(a).localeCompare(of(b))
  return {
    since,
    until,
    rows: [...dayModelRows].sort(
      (a, b) => a.day.localeCompare(b.day) || a.model.localeCompare(b.model),
    ),
    days: [...byDay.values()].sort(byText((item) => item.day)),
    models: [...byModel.values()].sort(
      (a, b) => b.costNanoUsd - a.costNanoUsd || a.model.localeCompare(b.model),
    ),
    keys: [...keyRows].sort(
      (a, b) => b.costNanoUsd - a.costNanoUsd || a.keyId.localeCompare(b.keyId),
    ),
    totals,
  }
}

function getOr<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key)
  if (value === undefined) {
    value = make()
    map.set(key, value)
  }
  return value
}
