import type { UsageTotals } from '../usage/usage-report'
import type { PostgresOptions } from './client'
import { readTotals, reportSpan } from './key-usage'
import { resolveTables } from './tables'

/** The sums of `usageSums`, computed from ledger rows rather than read from a rollup. */
export const ledgerSums = `count(*)::text AS requests,
  count(*) FILTER (WHERE outcome = 'error')::text AS error_requests,
  count(*) FILTER (WHERE outcome = 'aborted')::text AS aborted_requests,
  coalesce(sum(input_tokens), 0)::text AS input_tokens,
  coalesce(sum(output_tokens), 0)::text AS output_tokens,
  coalesce(sum(cached_input_tokens), 0)::text AS cached_input_tokens,
  coalesce(sum(cache_write_input_tokens), 0)::text AS cache_write_input_tokens,
  coalesce(sum(cache_write_1h_input_tokens), 0)::text AS cache_write_1h_input_tokens,
  coalesce(sum(reasoning_tokens), 0)::text AS reasoning_tokens,
  coalesce(sum(total_tokens), 0)::text AS total_tokens,
  coalesce(sum(cost_nano), 0)::text AS cost_nano,
  coalesce(sum(list_cost_nano), 0)::text AS list_cost_nano,
  count(*) FILTER (WHERE cost_nano IS NULL)::text AS unpriced_requests,
  count(*) FILTER (WHERE cached)::text AS cache_hits,
  coalesce(sum(saved_cost_nano), 0)::text AS saved_cost_nano`

/** One key's end users over a span: each one's totals, most spend first. */
export type EndUserUsageReport = {
  keyId: string
  since: string
  until: string
  endUsers: Array<{ endUser: string } & UsageTotals>
}

/**
 * What each end user of one key used and spent over a span of UTC days (by when requests ended),
 * read from the ledger through its `key_id, ended_at` index: end users have no rollup, as there
 * may be very many. `limit` bounds the answer (default 100, the biggest spenders first). Requests
 * that named no end user are not in it.
 *
 * @example
 * const { endUsers } = await endUserUsage({ client: pool }, 'key_app', { since: new Date('2026-11-01') })
 */
export async function endUserUsage(
  options: PostgresOptions,
  keyId: string,
  span: { since?: Date; until?: Date; now?: () => number; limit?: number } = {},
): Promise<EndUserUsageReport> {
  const tables = resolveTables(options)
  const { since, until } = reportSpan(span)
  const limit = Math.max(1, Math.min(10_000, Math.floor(span.limit ?? 100)))
  const { rows } = await options.client.query(
    `SELECT end_user, ${ledgerSums} FROM ${tables.ledger}
     WHERE key_id = $1 AND end_user IS NOT NULL
       AND ended_at >= $2::date AND ended_at < $3::date + 1
     GROUP BY end_user ORDER BY sum(cost_nano) DESC NULLS LAST, end_user
     LIMIT ${limit}`,
    [keyId, since, until],
  )
  return {
    keyId,
    since,
    until,
    endUsers: rows.map((row) => ({ endUser: String(row.end_user), ...readTotals(row) })),
  }
}
