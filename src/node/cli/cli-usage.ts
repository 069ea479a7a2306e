import { parseArgs } from 'node:util'
import { organisationUsage, type OrganisationUsageReport } from '../../postgres/org-usage'
import { formatUsd } from '../../pricing/price-units'
import { databaseOptions, databaseUsage, openCommandDatabase, UsageError } from './cli-database'
import { readDay } from './cli-keys'
import { spendTable, spendText } from './cli-keys-format'

/** Usage of `model-gateway usage`. */
export const orgUsageUsage = `Usage: model-gateway usage [options]

Spend and usage across every key, per UTC day and per model (and per key, routing group and team,
with response-cache hits and what they saved), from the ledger's daily rollups.

Per group counts from schema version 8 on (the group that answered; MCP tool calls are in none).

  --since YYYY-MM-DD     first day (default: 29 days before --until)
  --until YYYY-MM-DD     last day (default: today, UTC)

${databaseUsage}`

/** `model-gateway usage`: the organisation's spend per day, per model, per key, group and team. */
export async function runOrgUsage(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { ...databaseOptions, since: { type: 'string' }, until: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  })
  if (values.help) {
    console.log(orgUsageUsage)
    return 0
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`)
  const database = await openCommandDatabase(values)
  try {
    const report = await organisationUsage(database.postgres, {
      since: readDay(values.since, '--since'),
      until: readDay(values.until, '--until'),
    })
    console.log(values.json ? JSON.stringify(report) : orgUsageText(report))
    return 0
  } finally {
    await database.close()
  }
}

/** The text `model-gateway usage` prints. */
export function orgUsageText(report: OrganisationUsageReport): string {
  const lines = [`Usage of every key, ${report.since} to ${report.until} (UTC days)`]
  if (report.rows.length === 0) {
    lines.push('No requests in this span.')
    return lines.join('\n')
  }
  lines.push(
    '',
    'Spend per day:',
    spendTable(
      'DAY',
      report.days.map((row) => [row.day, row]),
    ),
    '',
    'Spend per model:',
    spendTable(
      'MODEL',
      report.models.map((row) => [row.model, row]),
    ),
    '',
    'Spend per key:',
    spendTable(
      'KEY',
      report.keys.map((row) => [row.keyId, row]),
    ),
    ...(report.groups === undefined || report.groups.length === 0
      ? []
      : [
          '',
          'Spend per group:',
          spendTable(
            'GROUP',
            report.groups.map((row) => [row.groupId, row]),
          ),
        ]),
    ...(report.teams.length === 0
      ? []
      : [
          '',
          'Spend per team:',
          spendTable(
            'TEAM',
            report.teams.map((row) => [row.team, row]),
          ),
        ]),
    '',
    `Total: ${report.totals.requests} requests, ${report.totals.totalTokens} tokens, ${spendText(report.totals)} (${formatUsd(report.totals.listCostNanoUsd)} at list price)`,
  )
  return lines.join('\n')
}
