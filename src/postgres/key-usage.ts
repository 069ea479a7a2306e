import type { DailyUsage } from '../usage/usage-ledger'
import type { UsageTotals } from '../usage/usage-report'
import type { PostgresOptions } from './client'
import { resolveTables } from './tables'

/** Requests, tokens and spend over a span (the core's type, read from the rollup here). */
export type { UsageTotals }

/**
 * A key's usage from the daily rollup: per UTC day and model, per model over the span, the span's
 * totals and the key's lifetime.
 */
export type KeyUsageReport = {
  keyId: string
  /** First and last UTC day of the span, `YYYY-MM-DD`, inclusive. */
  since: string
  until: string
  days: Array<{ day: string; model: string } & UsageTotals>
  models: Array<{ model: string } & UsageTotals>
  totals: UsageTotals
  lifetime: UsageTotals
}

/** The sums every report reads from the daily rollup, as text (drivers parse bigint apart). */
export const usageSums = `coalesce(sum(requests), 0)::text AS requests,
  coalesce(sum(error_requests), 0)::text AS error_requests,
  coalesce(sum(aborted_requests), 0)::text AS aborted_requests,
  coalesce(sum(input_tokens), 0)::text AS input_tokens,
  coalesce(sum(output_tokens), 0)::text AS output_tokens,
  coalesce(sum(cached_input_tokens), 0)::text AS cached_input_tokens,
  coalesce(sum(cache_write_input_tokens), 0)::text AS cache_write_input_tokens,
  coalesce(sum(cache_write_1h_input_tokens), 0)::text AS cache_write_1h_input_tokens,
  coalesce(sum(reasoning_tokens), 0)::text AS reasoning_tokens,
  coalesce(sum(total_tokens), 0)::text AS total_tokens,
  coalesce(sum(cost_nano), 0)::text AS cost_nano,
  coalesce(sum(list_cost_nano), 0)::text AS list_cost_nano,
  coalesce(sum(unpriced_requests), 0)::text AS unpriced_requests,
  coalesce(sum(cache_hits), 0)::text AS cache_hits,
  coalesce(sum(saved_cost_nano), 0)::text AS saved_cost_nano`

const dayMs = 86_400_000

/** A span of UTC days, `YYYY-MM-DD` inclusive: the last 30 days (today included) by default. */
export function reportSpan(span: { since?: Date; until?: Date; now?: () => number }): {
  since: string
  until: string
} {
  const now = (span.now ?? Date.now)()
  const until = utcDay(span.until ?? new Date(now))
  const since = utcDay(span.since ?? new Date(Date.parse(until) - 29 * dayMs))
  return { since, until }
}

/**
 * A key's usage and spend per UTC day and model, from the daily rollup the ledger keeps (so it
 * reads a few rows per day, never the ledger itself). The span defaults to the last 30 days, today
 * included. Rows still queued on running instances (at most their flush interval) are not in it.
 */
export async function keyUsage(
  options: PostgresOptions,
  keyId: string,
  span: { since?: Date; until?: Date; now?: () => number } = {},
): Promise<KeyUsageReport> {
  const tables = resolveTables(options)
  const { since, until } = reportSpan(span)
  const [days, lifetime] = await Promise.all([
    options.client.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, model, ${usageSums} FROM ${tables.daily}
       WHERE key_id = $1 AND day BETWEEN $2::date AND $3::date
       GROUP BY day, model ORDER BY day, model`,
      [keyId, since, until],
    ),
    options.client.query(`SELECT ${usageSums} FROM ${tables.daily} WHERE key_id = $1`, [keyId]),
  ])
  const rows = days.rows.map((row) => ({
    day: String(row.day),
    model: String(row.model),
    ...readTotals(row),
  }))
  return {
    keyId,
    since,
    until,
    days: rows,
    models: groupTotals(rows, (row) => row.model).map(([model, totals]) => ({
      model,
      ...totals,
    })),
    totals: sumTotals(rows),
    lifetime: readTotals(lifetime.rows[0] ?? {}),
  }
}

/**
 * A key's totals per UTC day over the last `days` days, today included, all models together,
 * oldest first; one indexed read of the daily rollup. What `GET /v1/usage` shows as `daily`.
 */
export async function dailyUsage(
  options: PostgresOptions,
  keyId: string,
  days: number,
  now: number = Date.now(),
): Promise<DailyUsage[]> {
  const tables = resolveTables(options)
  const until = utcDay(new Date(now))
  const since = utcDay(new Date(Date.parse(until) - (Math.max(1, days) - 1) * dayMs))
  const { rows } = await options.client.query(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, ${usageSums} FROM ${tables.daily}
     WHERE key_id = $1 AND day BETWEEN $2::date AND $3::date
     GROUP BY day ORDER BY day`,
    [keyId, since, until],
  )
  return rows.map((row) => {
    const totals = readTotals(row)
    return {
      date: String(row.day),
      requests: totals.requests,
      inputTokens: totals.inputTokens,
      outputTokens: totals.outputTokens,
      cachedInputTokens: totals.cachedInputTokens,
      totalTokens: totals.totalTokens,
      costNanoUsd: totals.costNanoUsd,
      unpricedRequests: totals.unpricedRequests,
      cacheHits: totals.cacheHits,
      savedCostNanoUsd: totals.savedCostNanoUsd,
    }
  })
}

/** One row of `usageSums` as numbers. */
export function readTotals(row: Record<string, unknown>): UsageTotals {
  return {
    requests: Number(row.requests ?? 0),
    errorRequests: Number(row.error_requests ?? 0),
    abortedRequests: Number(row.aborted_requests ?? 0),
    inputTokens: Number(row.input_tokens ?? 0),
    outputTokens: Number(row.output_tokens ?? 0),
    cachedInputTokens: Number(row.cached_input_tokens ?? 0),
    cacheWriteInputTokens: Number(row.cache_write_input_tokens ?? 0),
    cacheWrite1hInputTokens: Number(row.cache_write_1h_input_tokens ?? 0),
    reasoningTokens: Number(row.reasoning_tokens ?? 0),
    totalTokens: Number(row.total_tokens ?? 0),
    costNanoUsd: Number(row.cost_nano ?? 0),
    listCostNanoUsd: Number(row.list_cost_nano ?? 0),
    unpricedRequests: Number(row.unpriced_requests ?? 0),
    cacheHits: Number(row.cache_hits ?? 0),
    savedCostNanoUsd: Number(row.saved_cost_nano ?? 0),
  }
}

/** Totals added up. */
export function sumTotals(rows: readonly UsageTotals[]): UsageTotals {
  const totals = readTotals({})
  for (const row of rows) {
    for (const name of Object.keys(totals) as Array<keyof UsageTotals>) totals[name] += row[name]
  }
  return totals
}

/** Rows grouped by a key and added up, in the order the keys first appear. */
export function groupTotals<T extends UsageTotals>(
  rows: readonly T[],
  keyOf: (row: T) => string,
): Array<[string, UsageTotals]> {
  const groups = new Map<string, T[]>()
  for (const row of rows) {
    const key = keyOf(row)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [row])
    else group.push(row)
  }
  return [...groups].map(([key, group]) => [key, sumTotals(group)])
}

/** `YYYY-MM-DD` of an instant, in UTC. */
function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10)
}
