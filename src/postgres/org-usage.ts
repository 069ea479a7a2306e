import type { PostgresOptions } from './client'
import type { UsageReport, UsageTotals } from '../usage/usage-report'
import { ledgerSums } from './end-user-usage'
import { groupTotals, readTotals, reportSpan, sumTotals, usageSums } from './key-usage'
import { resolveTables } from './tables'

/**
 * The organisation's usage and spend across every key over a span of UTC days: per day and model,
 * per day, per model, per key, per routing group (schema version 8), and in all (the core's
 * `UsageReport`), and per team: what the requests of each team's keys spent, by the team each
 * request was made in (schema version 4). Keys of no team are in no team's row.
 */
export type OrganisationUsageReport = UsageReport & {
  teams: Array<{ team: string } & UsageTotals>
}

/**
 * Spend and usage across all keys, per UTC day and per model, per key, per routing group and per
 * team, from the daily rollups (a few rows per key and day, never the ledger itself): what
 * `model-gateway usage` prints, and what a console charts. The span defaults to the last 30 days,
 * today included; `keyId` narrows it to one key, `team` to one team's requests (the per-team
 * rollup, which has no group: `groups` is left out), `endUser` to one end user's (the ledger's rows
 * through the key's index: end users have no rollup). Groups are the per-group rollup's, which
 * starts at schema version 8: days before it have none.
 * Rows still queued on running instances (at most their flush interval) are not in it yet.
 *
 * @example
 * const report = await organisationUsage({ client: pool }, { since: new Date('2026-11-01') })
 * console.log(report.totals.costNanoUsd / 1e9, 'USD')
 */
export async function organisationUsage(
  options: PostgresOptions,
  span: {
    since?: Date
    until?: Date
    now?: () => number
    keyId?: string
    /** Only this team's requests, from the per-team rollup. */
    team?: string
    /** Only this end user's requests (give `keyId` with it), from the ledger itself. */
    endUser?: string
  } = {},
): Promise<OrganisationUsageReport> {
  const tables = resolveTables(options)
  const { since, until } = reportSpan(span)
  const params: unknown[] = [since, until]
  const filters: string[] = []
  const filter = (column: string, value: string | undefined) => {
    if (value === undefined) return
    params.push(value)
    filters.push(` AND ${column} = $${params.length}`)
  }
  filter('key_id', span.keyId)
  // One team's share reads the per-team rollup, which has every request made in the team.
  const teamOnly = span.team !== undefined
  filter('team', span.team)
  const where = filters.join('')
  const whereParams = params.length
  const [source, sums, dayRange] =
    span.endUser !== undefined
      ? [tables.ledger, ledgerSums, `(ended_at AT TIME ZONE 'UTC')::date`]
      : [teamOnly ? tables.teamDaily : tables.daily, usageSums, 'day']
  if (span.endUser !== undefined) filter('end_user', span.endUser)
  const all = filters.join('')
  const groupSource =
    span.endUser !== undefined
      ? { table: tables.ledger, sums: ledgerSums, where: `${all} AND kind IS NULL`, params }
      : { table: tables.groupDaily, sums: usageSums, where, params: params.slice(0, whereParams) }
  const [byDayModel, byKey, byTeam, byGroup] = await Promise.all([
    options.client.query(
      `SELECT to_char(${dayRange}, 'YYYY-MM-DD') AS day, model, ${sums} FROM ${source}
       WHERE ${dayRange} BETWEEN $1::date AND $2::date${all}
       GROUP BY 1, model ORDER BY 1, model`,
      params,
    ),
    options.client.query(
      `SELECT key_id, ${sums} FROM ${source}
       WHERE ${dayRange} BETWEEN $1::date AND $2::date${all}
       GROUP BY key_id ORDER BY sum(cost_nano) DESC NULLS LAST, key_id`,
      params,
    ),
    span.endUser !== undefined
      ? Promise.resolve({ rows: [] })
      : options.client.query(
          `SELECT team, ${usageSums} FROM ${tables.teamDaily}
           WHERE day BETWEEN $1::date AND $2::date${where}
           GROUP BY team ORDER BY sum(cost_nano) DESC, team`,
          params.slice(0, whereParams),
        ),
    teamOnly
      ? Promise.resolve(undefined)
      : options.client.query(
          `SELECT group_id, ${groupSource.sums} FROM ${groupSource.table}
           WHERE ${dayRange} BETWEEN $1::date AND $2::date${groupSource.where}
           GROUP BY group_id ORDER BY sum(cost_nano) DESC NULLS LAST, group_id`,
          groupSource.params,
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
    ...(byGroup === undefined
      ? {}
      : {
          groups: byGroup.rows.map((row) => ({
            groupId: String(row.group_id),
            ...readTotals(row),
          })),
        }),
    totals: sumTotals(rows),
  }
}
