import type { UsageReports } from '../usage/usage-report'
import type { PostgresOptions } from './client'
import { organisationUsage } from './org-usage'
import { resolveTables } from './tables'

/**
 * Usage reports over the ledger's daily rollup, for the console (`model-gateway/console`):
 * - `usageReport` is `organisationUsage` for a span (and one key, or all), two reads of the
 *   rollup whose size grows with days × models plus keys, never with requests;
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
    usageReport: (query) =>
      organisationUsage(options, {
        since: new Date(`${query.since}T00:00:00Z`),
        until: new Date(`${query.until}T00:00:00Z`),
        keyId: query.keyId,
        team: query.team,
        endUser: query.endUser,
      }),
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
