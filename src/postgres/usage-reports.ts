import { assembleReport, type UsageReports, type UsageTotals } from '../usage/usage-report'
import type { PostgresOptions } from './client'
import { resolveTables } from './tables'

const sums = `coalesce(sum(requests), 0)::text AS requests,
  coalesce(sum(error_requests), 0)::text AS error_requests,
  coalesce(sum(aborted_requests), 0)::text AS aborted_requests,
  coalesce(sum(input_tokens), 0)::text AS input_tokens,
  coalesce(sum(output_tokens), 0)::text AS output_tokens,
  coalesce(sum(cached_input_tokens), 0)::text AS cached_input_tokens,
  coalesce(sum(total_tokens), 0)::text AS total_tokens`

/**
 * Usage reports over the ledger's daily rollup, for the console (`model-gateway/console`):
 * - `usageReport` reads a span per day and model and per key in one statement (grouping sets), so
 *   its size grows with days × models plus keys, never with requests;
 * - `lastUsed` finds each key's last request with one index probe per key (`key_id, ended_at`).
 * Rows still queued on running instances (at most their flush interval) are not in it yet.
 *
 * @example
 * const reports = createPostgresUsageReports({ client: pool })
 * const month = await reports.usageReport({ since: '2026-11-01', until: '2026-11-30' })
 */
export function createPostgresUsageReports(options: PostgresOptions): UsageReports {
  const tables = resolveTables(options)
  return {
    async usageReport(query) {
      const params: unknown[] = [query.since, query.until]
      if (query.keyId !== undefined) params.push(query.keyId)
      const { rows } = await options.client.query(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, model, key_id,
           GROUPING(day, model)::text AS by_key, ${sums}
         FROM ${tables.daily}
         WHERE day BETWEEN $1::date AND $2::date${query.keyId === undefined ? '' : ' AND key_id = $3'}
         GROUP BY GROUPING SETS ((day, model), (key_id))`,
        params,
      )
      const dayModel: Array<{ day: string; model: string } & UsageTotals> = []
      const keys: Array<{ keyId: string } & UsageTotals> = []
      for (const row of rows) {
        if (row.by_key === '0') {
          dayModel.push({ day: String(row.day), model: String(row.model), ...readTotals(row) })
        } else keys.push({ keyId: String(row.key_id), ...readTotals(row) })
      }
      return assembleReport(query.since, query.until, dayModel, keys)
    },
    async lastUsed(keyIds) {
      const found = new Map<string, number>()
      if (keyIds.length === 0) return found
      const { rows } = await options.client.query(
        `SELECT id, floor(extract(epoch FROM
           (SELECT max(ended_at) FROM ${tables.ledger} WHERE key_id = id)) * 1000)::bigint::text AS at
         FROM jsonb_array_elements_text($1::text::jsonb) AS id`,
        // JSON text, as every statement passes structured values: drivers agree on text.
        [JSON.stringify(keyIds)],
      )
      for (const row of rows) {
        if (row.at !== null && row.at !== undefined) found.set(String(row.id), Number(row.at))
      }
      return found
    },
  }
}

function readTotals(row: Record<string, unknown>): UsageTotals {
  return {
    requests: Number(row.requests ?? 0),
    errorRequests: Number(row.error_requests ?? 0),
    abortedRequests: Number(row.aborted_requests ?? 0),
    inputTokens: Number(row.input_tokens ?? 0),
    outputTokens: Number(row.output_tokens ?? 0),
    cachedInputTokens: Number(row.cached_input_tokens ?? 0),
    totalTokens: Number(row.total_tokens ?? 0),
  }
}
