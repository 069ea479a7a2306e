import type { DailyUsage, UsageLedger } from './usage-ledger'
import type { UsageRecord } from './usage-meter'
import {
  addTotals,
  emptyTotals,
  recordTotals,
  reportOf,
  type UsageQuery,
  type UsageReport,
  type UsageReports,
  type UsageTotals,
} from './usage-report'

/** Options of `createMemoryUsageLedger`. */
export type MemoryUsageLedgerOptions = {
  /** UTC days of history kept, today included (default 92); older days are dropped. */
  retentionDays?: number | undefined
  /** The clock (default `Date.now`). */
  now?: (() => number) | undefined
}

/**
 * A ledger that keeps this process's usage per key (with its team, end user and routing group),
 * UTC day and model, and serves reports.
 */
export type MemoryUsageLedger = UsageLedger & UsageReports

type Row = {
  keyId: string
  team: string | undefined
  endUser: string | undefined
  /** The routing group; `undefined` for an MCP tool call, which is in none. */
  groupId: string | undefined
  day: string
  model: string
} & UsageTotals

const dayMs = 86_400_000

/**
 * A usage ledger in memory: a rollup of this process's requests per key, team, end user, routing
 * group, UTC day and model (not one row per request; a key's end users each have their own rows),
 * kept for `retentionDays`. It gives `GET /v1/usage` its `daily` history
 * and the console its charts without a database; a restart forgets it, and each instance knows
 * only its own requests. `state.postgres` is the durable, shared one.
 *
 * A request counts on the UTC day it ended, as the Postgres rollup and the daily budgets count it.
 *
 * @example
 * const gateway = createGateway({ ...config, usageLedger: createMemoryUsageLedger() })
 */
export function createMemoryUsageLedger(options: MemoryUsageLedgerOptions = {}): MemoryUsageLedger {
  const retentionDays = options.retentionDays ?? 92
  if (!Number.isInteger(retentionDays) || retentionDays < 1) {
    throw new RangeError('retentionDays must be a whole number of at least 1.')
  }
  const now = options.now ?? Date.now
  const rows = new Map<string, Row>()
  const lastUsedAt = new Map<string, number>()
  let oldestKept = ''

  /** Drops the days past retention, once per new day. */
  const prune = (today: string) => {
    const oldest = utcDay(Date.parse(today) - (retentionDays - 1) * dayMs)
    if (oldest === oldestKept) return
    oldestKept = oldest
    for (const [id, row] of rows) if (row.day < oldest) rows.delete(id)
  }

  const select = (query: UsageQuery) => {
    const selected: Row[] = []
    for (const row of rows.values()) {
      if (row.day < query.since || row.day > query.until) continue
      if (query.keyId !== undefined && row.keyId !== query.keyId) continue
      if (query.team !== undefined && row.team !== query.team) continue
      if (query.endUser !== undefined && row.endUser !== query.endUser) continue
      selected.push(row)
    }
    return selected
  }

  return {
    record(record: UsageRecord) {
      const endedAt = record.startedAt + Math.max(0, record.durationMs)
      const day = utcDay(endedAt)
      prune(utcDay(now()))
      if (day < oldestKept) return
      const { keyId, team, endUser, model } = record
      // An MCP tool call's `groupId` names no routing group.
      const groupId = record.kind === 'tool' ? undefined : record.groupId
      // A key's team, end user and group are part of the row: reports select or group by them.
      const id = [keyId, team ?? '', endUser ?? '', groupId ?? '\u0001', day, model].join('\u0000')
      let row = rows.get(id)
      if (row === undefined) {
        row = { keyId, team, endUser, groupId, day, model, ...emptyTotals() }
        rows.set(id, row)
      }
      addTotals(row, recordTotals(record))
      lastUsedAt.set(record.keyId, Math.max(lastUsedAt.get(record.keyId) ?? 0, endedAt))
    },
    async dailyUsage(keyId: string, days: number): Promise<DailyUsage[]> {
      const until = utcDay(now())
      const since = utcDay(Date.parse(until) - (Math.max(1, days) - 1) * dayMs)
      return reportOf(since, until, select({ since, until, keyId })).days.map((day) => ({
        date: day.day,
        requests: day.requests,
        inputTokens: day.inputTokens,
        outputTokens: day.outputTokens,
        cachedInputTokens: day.cachedInputTokens,
        totalTokens: day.totalTokens,
        costNanoUsd: day.costNanoUsd,
        unpricedRequests: day.unpricedRequests,
        cacheHits: day.cacheHits,
        savedCostNanoUsd: day.savedCostNanoUsd,
      }))
    },
    async usageReport(query: UsageQuery): Promise<UsageReport> {
      return reportOf(query.since, query.until, select(query))
    },
    async lastUsed(keyIds: readonly string[]) {
      const found = new Map<string, number>()
      for (const id of keyIds) {
        const at = lastUsedAt.get(id)
        if (at !== undefined) found.set(id, at)
      }
      return found
    },
  }
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}
