import type { UsageReport, UsageTotals } from '../usage/usage-report'
import type { PostgresOptions } from './client'
import { groupTotals, readTotals, reportSpan, sumTotals, usageSums } from './key-usage'
import { resolveTables } from './tables'

/**
 * A team's usage over a span of UTC days, from the per-team rollup: per day and model, per day,
 * per model, per key of the team, and in all; and the team's lifetime totals (what its quota
 * counts). Requests count for the team they were made in, even if their key left it since.
 */
export type TeamUsageReport = UsageReport & { team: string; lifetime: UsageTotals }

/**
 * A team's usage and spend, read from the per-team daily rollup (a few rows per key and day, never
 * the ledger). The span defaults to the last 30 days, today included. Rows still queued on running
 * instances (at most their flush interval) are not in it yet.
 *
 * @example
 * const report = await teamUsage({ client: pool }, 'data', { since: new Date('2026-11-01') })
 */
export async function teamUsage(
  options: PostgresOptions,
  team: string,
  span: { since?: Date; until?: Date; now?: () => number } = {},
): Promise<TeamUsageReport> {
  const tables = resolveTables(options)
  const { since, until } = reportSpan(span)
  const [byDayModel, byKey, lifetime] = await Promise.all([
    options.client.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, model, ${usageSums} FROM ${tables.teamDaily}
       WHERE team = $1 AND day BETWEEN $2::date AND $3::date
       GROUP BY day, model ORDER BY day, model`,
      [team, since, until],
    ),
    options.client.query(
      `SELECT key_id, ${usageSums} FROM ${tables.teamDaily}
       WHERE team = $1 AND day BETWEEN $2::date AND $3::date
       GROUP BY key_id ORDER BY sum(cost_nano) DESC, key_id`,
      [team, since, until],
    ),
    options.client.query(`SELECT ${usageSums} FROM ${tables.teamDaily} WHERE team = $1`, [team]),
  ])
  const rows = byDayModel.rows.map((row) => ({
    day: String(row.day),
    model: String(row.model),
    ...readTotals(row),
  }))
  return {
    team,
    since,
    until,
    rows,
    days: groupTotals(rows, (row) => row.day).map(([day, totals]) => ({ day, ...totals })),
    models: groupTotals(rows, (row) => row.model)
      .map(([model, totals]) => ({ model, ...totals }))
      .sort((a, b) => b.costNanoUsd - a.costNanoUsd || a.model.localeCompare(b.model)),
    keys: byKey.rows.map((row) => ({ keyId: String(row.key_id), ...readTotals(row) })),
    totals: sumTotals(rows),
    lifetime: readTotals(lifetime.rows[0] ?? {}),
  }
}
