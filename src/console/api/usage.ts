import { ConsoleError } from '../server/answers'
import type { ConsoleRequest } from '../server/context'
import { listDirectory } from '../server/key-directory'
import { usageReportsOf, utcDay } from './usage-source'

/** The longest span one usage page reads, in days: a page is one bounded read. */
export const maxUsageDays = 92
const dayMs = 86_400_000
const dayPattern = /^\d{4}-\d{2}-\d{2}$/

/**
 * `GET <mount>/api/usage?since=YYYY-MM-DD&until=YYYY-MM-DD&key=<id>`: usage per day, per model
 * and per key over at most 92 UTC days (default the last 30), in one answer read with one query.
 * A key holder gets their own key's, whatever `key` says; another key's id is answered as
 * unknown. Without a ledger that reports, the meter's totals per key.
 */
export async function usageCall(call: ConsoleRequest) {
  const { deps, user, url } = call
  const today = utcDay(deps.now())
  const until = readDay(url.searchParams.get('until'), 'until') ?? today
  const since =
    readDay(url.searchParams.get('since'), 'since') ?? utcDay(Date.parse(until) - 29 * dayMs)
  if (since > until) throw new ConsoleError(400, '"since" is after "until".')
  const days = (Date.parse(until) - Date.parse(since)) / dayMs + 1
  if (days > maxUsageDays) {
    throw new ConsoleError(400, `Pick at most ${maxUsageDays} days (${days} asked).`)
  }
  const asked = url.searchParams.get('key') ?? undefined
  let entries = await listDirectory(deps)
  if (user.role === 'key') {
    if (asked !== undefined && asked !== user.keyId)
      throw new ConsoleError(404, `No key with id "${asked}".`)
    entries = entries.filter((entry) => entry.key.id === user.keyId)
  } else if (asked !== undefined && !entries.some((entry) => entry.key.id === asked)) {
    throw new ConsoleError(404, `No key with id "${asked}".`)
  }
  const keyId = user.role === 'key' ? user.keyId : asked
  const names = entries.map((entry) => ({ id: entry.key.id, name: entry.key.name }))
  const reports = usageReportsOf(deps)
  if (reports !== undefined) {
    return {
      source: 'ledger' as const,
      keys: names,
      report: await reports.usageReport({ since, until, keyId }),
    }
  }
  // The meter knows each key's running totals only: no days, no models.
  const selected = keyId === undefined ? entries : entries.filter((entry) => entry.key.id === keyId)
  const totals = await Promise.all(
    selected.map(async (entry) => {
      const summary = await deps.gateway.runtime.meter.summary(entry.key.id)
      return {
        keyId: entry.key.id,
        requests: summary.requests,
        inputTokens: summary.inputTokens,
        outputTokens: summary.outputTokens,
        cachedInputTokens: summary.cachedInputTokens,
        totalTokens: summary.totalTokens,
        costNanoUsd: summary.costNanoUsd ?? null,
        unpricedRequests: summary.unpricedRequests ?? null,
        // Response-cache hits and what they saved; null from a meter that does not count them.
        cacheHits: summary.cacheHits ?? null,
        savedCostNanoUsd: summary.savedCostNanoUsd ?? null,
      }
    }),
  )
  return { source: 'meter' as const, keys: names, totals }
}

function readDay(value: string | null, name: string): string | undefined {
  if (value === null || value === '') return undefined
  if (
    !dayPattern.test(value) ||
    Number.isNaN(Date.parse(value)) ||
    utcDay(Date.parse(value)) !== value
  ) {
    throw new ConsoleError(400, `"${name}" takes a day as YYYY-MM-DD.`)
  }
  return value
}
