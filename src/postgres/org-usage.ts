import type { PostgresOptions } from './client'
import type { UsageReport, UsageTotals } from '../usage/usage-report'
import { groupTotals, readTotals, reportSpan, sumTotals, usageSums } from './key-usage'
import { resolveTables } from './tables'

/**
 * The organisation's usage and spend across every key over a span of UTC days: per day and model,
 * per day, per model, per key, and in all (the core's `UsageReport`), and per team: what the
 * requests of each team's keys spent, by the team each request was made in (schema version 4).
 * Keys of no team are in no team's row.
 */
export type OrganisationUsageReport = UsageReport & {
  teams: Array<{ team: string } & UsageTotals>
}

/**
 * Spend and usage across all keys, per UTC day and per model, per key and per team, from the daily rollup (a few rows
 * per key and day, never the ledger itself): what `model-gateway usage` prints, and what a console
 * charts. The span defaults to the last 30 days, today included; `keyId` narrows it to one key.
 * Rows still queued on running instances (at most their flush interval) are not in it yet.
 *
 * @example
 * const report = await organisationUsage({ client: pool }, { since: new Date('2026-11-01') })
 * console.log(report.totals.costNanoUsd / 1e9, 'USD')
 */
export async function organisationUsage(
  options: PostgresOptions,
  span: { since?: Date; until?: Date; now?: () => number; keyId?: string } = {},
): Promise<OrganisationUsageReport> {
  const tables = resolveTables(options)
  const { since, until } = reportSpan(span)
  // One key's share, with `keyId`: the same report, as a console shows a key holder.
  const oneKey = span.keyId === undefined ? '' : ' AND key_id = $3'
  const params = span.keyId === undefined ? [since, until] : [since, until, span.keyId]
  const [byDayModel, byKey, byTeam] = await Promise.all([
    options.client.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, model, ${usageSums} FROM ${tables.daily}
       WHERE day BETWEEN $1::date AND $2::date${oneKey}
       GROUP BY day, model ORDER BY day, model`,
      params,
    ),
    options.client.query(
      `SELECT key_id, ${usageSums} FROM ${tables.daily}
       WHERE day BETWEEN $1::date AND $2::date${oneKey}
       GROUP BY key_id ORDER BY sum(cost_nano) DESC, key_id`,
      params,
    ),
    options.client.query(
      `SELECT team, ${usageSums} FROM ${tables.teamDaily}
       WHERE day BETWEEN $1::date AND $2::date${oneKey}
       GROUP BY team ORDER BY sum(cost_nano) DESC, team`,
      params,
    ),
  ])
  const rows = byDayModel.rows.map((row) => ({
    day: String(row.day),
    model: String(row.model),
    ...readTotals(row),
  }))
  return {
    since,
    until,
    rows,
    days: groupTotals(rows, (row) => row.day).map(([day, totals]) => ({ day, ...totals })),
    models: groupTotals(rows, (row) => row.model)
      .map(([model, totals]) => ({ model, ...totals }))
      .sort((a, b) => b.costNanoUsd - a.costNanoUsd || a.model.localeCompare(b.model)),
    keys: byKey.rows.map((row) => ({ keyId: String(row.key_id), ...readTotals(row) })),
    teams: byTeam.rows.map((row) => ({ team: String(row.team), ...readTotals(row) })),
    totals: sumTotals(rows),
  }
}
