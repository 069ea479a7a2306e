import type { MoneyBudget } from '../../auth/key-store'
import type { StoredKey } from '../../postgres/stored-key'
import type { StoredTeam } from '../../postgres/stored-team'
import type { TeamUsageReport } from '../../postgres/team-usage'
import { formatUsd, usdToNano } from '../../pricing/price-units'
import { budgetText, limitsText, spendTable, spendText } from './cli-keys-format'
import { formatTable } from './cli-table'

/** A stored team for `--json`: every field present, `null` when unset. */
export function teamJson(team: StoredTeam, keys?: readonly StoredKey[]) {
  return {
    id: team.id,
    name: team.name ?? null,
    groups: team.groups ?? null,
    quotaTokens: team.quotaTokens ?? null,
    limits: team.limits,
    budget: team.budget.length === 0 ? null : team.budget,
    ...(keys === undefined ? {} : { keys: keys.map((key) => key.id) }),
    createdAt: team.createdAt.toISOString(),
    updatedAt: team.updatedAt.toISOString(),
  }
}

/** Teams as a table for people, with how many active keys each has. */
export function teamsTable(teams: readonly StoredTeam[], keys: readonly StoredKey[]): string {
  return formatTable(
    ['ID', 'NAME', 'GROUPS', 'QUOTA', 'LIMITS', 'BUDGET', 'KEYS'],
    teams.map((team) => [
      team.id,
      team.name ?? '-',
      team.groups?.join(',') ?? 'all',
      team.quotaTokens?.toString() ?? '-',
      limitsText(team.limits),
      budgetText(team.budget, undefined),
      String(keys.filter((key) => key.team === team.id).length),
    ]),
  )
}

/** A money budget of a team with what its period's requests spent and what is left, in nano-USD. */
export type BudgetStanding = MoneyBudget & { spentNanoUsd: number; leftNanoUsd: number }

/**
 * Each budget against what the team spent in its current period: today (UTC), this month, or in
 * its lifetime, from a report of this month and the lifetime totals.
 */
export function budgetStandings(
  budgets: readonly MoneyBudget[],
  month: TeamUsageReport,
  today: string,
): BudgetStanding[] {
  return budgets.map((budget) => {
    const spent =
      budget.per === 'lifetime'
        ? month.lifetime.costNanoUsd
        : budget.per === 'month'
          ? month.totals.costNanoUsd
          : (month.days.find((day) => day.day === today)?.costNanoUsd ?? 0)
    return {
      ...budget,
      spentNanoUsd: spent,
      leftNanoUsd: Math.max(0, usdToNano(budget.usd) - spent),
    }
  })
}

/** The text `teams usage` prints: per day, per model, per key, totals, budgets and quota. */
export function teamUsageText(
  team: StoredTeam,
  report: TeamUsageReport,
  standings: readonly BudgetStanding[],
): string {
  const lines = [
    `Usage of team ${team.id}${team.name ? ` (${team.name})` : ''}, ${report.since} to ${report.until} (UTC days)`,
  ]
  if (report.rows.length === 0) lines.push('No requests in this span.')
  else {
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
    )
  }
  const { totals, lifetime } = report
  lines.push(
    '',
    `Span: ${totals.requests} requests, ${totals.totalTokens} tokens, ${spendText(totals)}`,
  )
  for (const standing of standings) {
    const period = { day: 'today', month: 'this month', lifetime: 'in its lifetime' }[standing.per]
    lines.push(
      `Budget $${standing.usd}/${standing.per}: ${formatUsd(standing.spentNanoUsd)} spent ${period}, ${formatUsd(standing.leftNanoUsd)} left`,
    )
  }
  const quota =
    team.quotaTokens === undefined
      ? 'no quota'
      : `quota ${team.quotaTokens}, ${Math.max(0, team.quotaTokens - lifetime.totalTokens)} left`
  lines.push(
    `Lifetime: ${lifetime.requests} requests, ${lifetime.totalTokens} tokens, ${spendText(lifetime)}; ${quota}`,
  )
  return lines.join('\n')
}
