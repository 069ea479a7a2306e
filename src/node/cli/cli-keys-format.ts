import type { KeyLimits, MoneyBudget } from '../../auth/key-store'
import { sumTotals, type KeyUsageReport, type UsageTotals } from '../../postgres/key-usage'
import type { StoredKey } from '../../postgres/stored-key'
import { formatUsd } from '../../pricing/price-units'
import { formatTable } from './cli-table'

/** A stored key for `--json`: every field present, `null` when unset, dates in ISO 8601. */
export function keyJson(key: StoredKey) {
  return {
    id: key.id,
    publicId: key.publicId,
    display: key.display,
    name: key.name ?? null,
    groups: key.groups ?? null,
    quotaTokens: key.quotaTokens ?? null,
    limits: key.limits,
    budget: key.budget.length === 0 ? null : key.budget,
    priceMultiplier: key.priceMultiplier ?? null,
    team: key.team ?? null,
    expiresAt: key.expiresAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    createdAt: key.createdAt.toISOString(),
    updatedAt: key.updatedAt.toISOString(),
  }
}

const limitLabels: Record<keyof KeyLimits, string> = {
  requestsPerMinute: 'rpm',
  inputTokensPerMinute: 'in/min',
  outputTokensPerMinute: 'out/min',
  concurrency: 'concurrent',
  tokensPerDay: 'day',
  tokensPerMonth: 'month',
}

/** Keys as a table for people. */
export function keysTable(keys: readonly StoredKey[]): string {
  return formatTable(
    ['ID', 'NAME', 'KEY', 'TEAM', 'GROUPS', 'QUOTA', 'LIMITS', 'BUDGET', 'EXPIRES', 'STATUS'],
    keys.map((key) => [
      key.id,
      key.name ?? '-',
      key.display,
      key.team ?? '-',
      key.groups?.join(',') ?? 'all',
      key.quotaTokens?.toString() ?? '-',
      limitsText(key.limits),
      budgetText(key.budget, key.priceMultiplier),
      key.expiresAt?.toISOString() ?? '-',
      key.revokedAt === undefined ? 'active' : `revoked ${key.revokedAt.toISOString()}`,
    ]),
  )
}

/** Limits for a table: `rpm=60 day=50000`, or `-`. */
export function limitsText(limits: KeyLimits): string {
  return (
    Object.entries(limits)
      .map(([name, value]) => `${limitLabels[name as keyof KeyLimits]}=${value}`)
      .join(' ') || '-'
  )
}

/** Budgets and a multiplier for a table: `$10/day $200/month@80% ×1.2`, or `-`. */
export function budgetText(
  budgets: readonly MoneyBudget[],
  multiplier: number | undefined,
): string {
  const parts = budgets.map(
    (budget) =>
      `$${budget.usd}/${budget.per}${budget.alertAt === undefined ? '' : `@${Math.round(budget.alertAt * 100)}%`}`,
  )
  if (multiplier !== undefined) parts.push(`×${multiplier}`)
  return parts.join(' ') || '-'
}

/**
 * Spend as text: dollars, how many requests had no price (their spend is unknown), and what
 * response-cache hits saved, when there were any.
 */
export function spendText(totals: UsageTotals): string {
  const unpriced =
    totals.unpricedRequests === 0 ? '' : ` + ${totals.unpricedRequests} unpriced requests`
  const saved =
    totals.cacheHits === 0
      ? ''
      : ` (${totals.cacheHits} cache hits saved ${formatUsd(totals.savedCostNanoUsd)})`
  return `${formatUsd(totals.costNanoUsd)}${unpriced}${saved}`
}

/** The table of spend per model (or per anything): requests, tokens, cost. */
export function spendTable(
  title: string,
  rows: ReadonlyArray<readonly [string, UsageTotals]>,
): string {
  return formatTable(
    [
      title,
      'REQUESTS',
      'INPUT',
      'OUTPUT',
      'CACHED',
      'CACHE-WRITE',
      'REASONING',
      'COST',
      'UNPRICED',
      'CACHE-HITS',
      'SAVED',
    ],
    rows.map(([name, row]) => [
      name,
      ...[
        row.requests,
        row.inputTokens,
        row.outputTokens,
        row.cachedInputTokens,
        row.cacheWriteInputTokens + row.cacheWrite1hInputTokens,
        row.reasoningTokens,
      ].map(String),
      formatUsd(row.costNanoUsd),
      String(row.unpricedRequests),
      // Response-cache hits (counted in REQUESTS too) and what they saved: the original cost.
      String(row.cacheHits),
      formatUsd(row.savedCostNanoUsd),
    ]),
  )
}

/** The text `keys usage` prints: per day and model, per model, per day, and the totals. */
export function usageText(key: StoredKey, report: KeyUsageReport): string {
  const lines = [
    `Usage of ${key.id}${key.name ? ` (${key.name})` : ''}, ${report.since} to ${report.until} (UTC days)`,
  ]
  if (report.days.length === 0) lines.push('No requests in this span.')
  else {
    lines.push(
      formatTable(
        [
          'DAY',
          'MODEL',
          'REQUESTS',
          'ERRORS',
          'ABORTED',
          'INPUT',
          'OUTPUT',
          'CACHED',
          'TOTAL',
          'COST',
        ],
        report.days.map((row) => [
          row.day,
          row.model,
          ...[
            row.requests,
            row.errorRequests,
            row.abortedRequests,
            row.inputTokens,
            row.outputTokens,
            row.cachedInputTokens,
            row.totalTokens,
          ].map(String),
          formatUsd(row.costNanoUsd) + (row.unpricedRequests > 0 ? '*' : ''),
        ]),
      ),
      '',
      'Spend per model:',
      spendTable(
        'MODEL',
        report.models.map((row) => [row.model, row]),
      ),
      '',
      'Spend per day:',
      spendTable('DAY', daysOf(report)),
    )
    if (report.totals.unpricedRequests > 0) {
      lines.push('', '* some requests were on models without a price: their spend is not counted')
    }
  }
  const { totals, lifetime } = report
  lines.push(
    '',
    `Span: ${totals.requests} requests, ${totals.totalTokens} tokens (${totals.inputTokens} in, ${totals.outputTokens} out, ${totals.cachedInputTokens} cached), ${spendText(totals)}`,
  )
  const quota =
    key.quotaTokens === undefined
      ? 'no quota'
      : `quota ${key.quotaTokens}, ${Math.max(0, key.quotaTokens - lifetime.totalTokens)} left`
  lines.push(
    `Lifetime: ${lifetime.requests} requests, ${lifetime.totalTokens} tokens, ${spendText(lifetime)}; ${quota}`,
  )
  return lines.join('\n')
}

/** The report's days, all models of a day together. */
function daysOf(report: KeyUsageReport): Array<[string, UsageTotals]> {
  const days = new Map<string, UsageTotals[]>()
  for (const row of report.days) days.set(row.day, [...(days.get(row.day) ?? []), row])
  return [...days].map(([day, rows]) => [day, sumTotals(rows)])
}
