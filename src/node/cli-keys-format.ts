import type { KeyLimits } from '../auth/key-store'
import type { KeyUsageReport } from '../postgres/key-usage'
import type { StoredKey } from '../postgres/stored-key'
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
    ['ID', 'NAME', 'KEY', 'GROUPS', 'QUOTA', 'LIMITS', 'EXPIRES', 'STATUS'],
    keys.map((key) => [
      key.id,
      key.name ?? '-',
      key.display,
      key.groups?.join(',') ?? 'all',
      key.quotaTokens?.toString() ?? '-',
      Object.entries(key.limits)
        .map(([name, value]) => `${limitLabels[name as keyof KeyLimits]}=${value}`)
        .join(' ') || '-',
      key.expiresAt?.toISOString() ?? '-',
      key.revokedAt === undefined ? 'active' : `revoked ${key.revokedAt.toISOString()}`,
    ]),
  )
}

/** The text `keys usage` prints. */
export function usageText(key: StoredKey, report: KeyUsageReport): string {
  const lines = [
    `Usage of ${key.id}${key.name ? ` (${key.name})` : ''}, ${report.since} to ${report.until} (UTC days)`,
  ]
  if (report.days.length === 0) lines.push('No requests in this span.')
  else {
    lines.push(
      formatTable(
        ['DAY', 'MODEL', 'REQUESTS', 'ERRORS', 'ABORTED', 'INPUT', 'OUTPUT', 'CACHED', 'TOTAL'],
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
        ]),
      ),
    )
  }
  const { totals, lifetime } = report
  lines.push(
    `Span: ${totals.requests} requests, ${totals.totalTokens} tokens (${totals.inputTokens} in, ${totals.outputTokens} out, ${totals.cachedInputTokens} cached)`,
  )
  const quota =
    key.quotaTokens === undefined
      ? 'no quota'
      : `quota ${key.quotaTokens}, ${Math.max(0, key.quotaTokens - lifetime.totalTokens)} left`
  lines.push(`Lifetime: ${lifetime.requests} requests, ${lifetime.totalTokens} tokens; ${quota}`)
  return lines.join('\n')
}
