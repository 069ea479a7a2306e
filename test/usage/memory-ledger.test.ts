import { describe, expect, it } from 'vitest'
import { createMemoryUsageLedger, type UsageRecord } from '../../src/index'

const day = Date.parse('2026-11-20T12:00:00Z')
const hour = 3_600_000

function record(
  keyId: string,
  model: string,
  startedAt: number,
  tokens: number,
  outcome: UsageRecord['outcome'] = 'ok',
): UsageRecord {
  return {
    requestId: `r-${Math.random()}`,
    keyId,
    groupId: 'g',
    providerId: 'p',
    model,
    upstreamModel: model,
    route: 'chat.completions',
    stream: false,
    usage: {
      inputTokens: tokens,
      outputTokens: tokens,
      cachedInputTokens: 1,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 2 * tokens,
    },
    outcome,
    status: outcome === 'ok' ? 200 : 502,
    startedAt,
    durationMs: 1000,
  }
}

describe('memory usage ledger', () => {
  it('rolls requests up per key, UTC day (of their end) and model, and reports them', async () => {
    let now = day
    const ledger = createMemoryUsageLedger({ now: () => now })
    ledger.record(record('a', 'm1', day, 10))
    ledger.record(record('a', 'm2', day + hour, 5, 'error'))
    ledger.record(record('b', 'm1', day + 2 * hour, 1))
    // Started before midnight, ended after: it counts on the day it ended.
    ledger.record(record('a', 'm1', Date.parse('2026-11-20T23:59:59.500Z'), 3))
    now = day + 86_400_000
    const report = await ledger.usageReport({ since: '2026-11-20', until: '2026-11-21' })
    expect(report.days.map((row) => [row.day, row.requests, row.totalTokens])).toEqual([
      ['2026-11-20', 3, 32],
      ['2026-11-21', 1, 6],
    ])
    expect(report.models.map((row) => [row.model, row.requests, row.errorRequests])).toEqual([
      ['m1', 3, 0],
      ['m2', 1, 1],
    ])
    expect(report.keys.map((row) => [row.keyId, row.totalTokens])).toEqual([
      ['a', 36],
      ['b', 2],
    ])
    expect(report.totals).toMatchObject({ requests: 4, cachedInputTokens: 4, totalTokens: 38 })
    const onlyB = await ledger.usageReport({ since: '2026-11-20', until: '2026-11-21', keyId: 'b' })
    expect(onlyB.totals.requests).toBe(1)
    expect(await ledger.dailyUsage!('a', 2)).toEqual([
      {
        date: '2026-11-20',
        requests: 2,
        inputTokens: 15,
        outputTokens: 15,
        cachedInputTokens: 2,
        totalTokens: 30,
        costNanoUsd: 0,
        unpricedRequests: 0,
        cacheHits: 0,
        savedCostNanoUsd: 0,
      },
      {
        date: '2026-11-21',
        requests: 1,
        inputTokens: 3,
        outputTokens: 3,
        cachedInputTokens: 1,
        totalTokens: 6,
        costNanoUsd: 0,
        unpricedRequests: 0,
        cacheHits: 0,
        savedCostNanoUsd: 0,
      },
    ])
    expect([...(await ledger.lastUsed(['a', 'b', 'c']))]).toEqual([
      ['a', Date.parse('2026-11-20T23:59:59.500Z') + 1000],
      ['b', day + 2 * hour + 1000],
    ])
  })

  it('adds up spend, list spend and unpriced requests (never $0 for an unpriced model)', async () => {
    const ledger = createMemoryUsageLedger({ now: () => day })
    const price = {
      model: 'm',
      input: 1,
      output: 2,
      cachedInput: 1,
      cacheWrite: 1,
      cacheWrite1h: 1,
      multiplier: 1.5,
      source: 'test',
    }
    ledger.record({
      ...record('a', 'priced', day, 10),
      cost: { nanoUsd: 1500, listNanoUsd: 1000, price },
    })
    ledger.record({
      ...record('a', 'priced', day, 10),
      cost: { nanoUsd: 300, listNanoUsd: 200, price },
    })
    ledger.record({ ...record('a', 'unpriced', day, 10), cost: null })
    const report = await ledger.usageReport({ since: '2026-11-20', until: '2026-11-20' })
    expect(report.totals).toMatchObject({
      requests: 3,
      costNanoUsd: 1800,
      listCostNanoUsd: 1200,
      unpricedRequests: 1,
    })
    expect(report.models.map((row) => [row.model, row.costNanoUsd, row.unpricedRequests])).toEqual([
      ['priced', 1800, 0],
      ['unpriced', 0, 1],
    ])
  })

  it('reports per routing group, with cache hits and what they saved; tool calls are in no group', async () => {
    const ledger = createMemoryUsageLedger({ now: () => day })
    const price = {
      model: 'm',
      input: 1,
      output: 1,
      cachedInput: 1,
      cacheWrite: 1,
      cacheWrite1h: 1,
      multiplier: 1,
      source: 'test',
    }
    const call = (keyId: string, groupId: string, nanoUsd: number, team?: string): UsageRecord => ({
      ...record(keyId, 'm', day, 10),
      groupId,
      ...(team === undefined ? {} : { team }),
      cost: { nanoUsd, listNanoUsd: nanoUsd, price },
    })
    ledger.record(call('a', 'faq', 700, 'data'))
    // A hit of that answer: free, and it saved the first call's cost.
    ledger.record({
      ...call('a', 'faq', 0, 'data'),
      cached: true,
      savedCost: { nanoUsd: 700, listNanoUsd: 700, price },
    })
    ledger.record(call('b', 'faq', 300))
    ledger.record(call('b', 'chat', 2000))
    ledger.record({ ...call('b', 'mcp', 0), kind: 'tool', usage: undefined })
    const report = await ledger.usageReport({ since: '2026-11-20', until: '2026-11-20' })
    expect(
      report.groups!.map((row) => [row.groupId, row.requests, row.costNanoUsd, row.cacheHits]),
    ).toEqual([
      ['chat', 1, 2000, 0],
      ['faq', 3, 1000, 1],
    ])
    expect(report.groups![1]).toMatchObject({ savedCostNanoUsd: 700 })
    // The tool call is in the totals, not in a group.
    expect(report.totals).toMatchObject({ requests: 5, cacheHits: 1, savedCostNanoUsd: 700 })
    const ofKey = await ledger.usageReport({ since: '2026-11-20', until: '2026-11-20', keyId: 'a' })
    expect(ofKey.groups).toEqual([
      expect.objectContaining({ groupId: 'faq', requests: 2, cacheHits: 1, savedCostNanoUsd: 700 }),
    ])
    const ofTeam = await ledger.usageReport({
      since: '2026-11-20',
      until: '2026-11-20',
      team: 'data',
    })
    expect(ofTeam.groups!.map((row) => [row.groupId, row.requests])).toEqual([['faq', 2]])
  })

  it('keeps retentionDays of history and drops older days', async () => {
    let now = day
    const ledger = createMemoryUsageLedger({ now: () => now, retentionDays: 2 })
    ledger.record(record('a', 'm', day, 1))
    now = day + 2 * 86_400_000
    ledger.record(record('a', 'm', now, 1))
    ledger.record(record('a', 'm', day, 1)) // too old to keep
    const report = await ledger.usageReport({ since: '2026-11-01', until: '2026-11-30' })
    expect(report.days.map((row) => row.day)).toEqual(['2026-11-22'])
    expect(() => createMemoryUsageLedger({ retentionDays: 0 })).toThrow(RangeError)
  })
})
