import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { GatewayError } from '../../src/index'
import {
  createKey,
  createPostgresKeyStore,
  createPostgresLedger,
  createPostgresTeamStore,
  createPostgresUsageReports,
  createTeam,
  endUserUsage,
  getKey,
  getTeam,
  KeyAdminError,
  ledgerReseed,
  listKeys,
  listTeams,
  migrate,
  organisationUsage,
  teamUsage,
  updateKey,
  updateTeam,
  type PostgresClient,
} from '../../src/postgres/index'
import type { UsageRecord } from '../../src/usage/usage-meter'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'

let database: TestDatabase
let options: { client: PostgresClient; schema: string }
beforeAll(async () => {
  database = await createTestDatabase('teams')
  options = { client: database.pool, schema: 'teams' }
  await migrate(options)
})
afterAll(() => database.drop())

/** A settled request of a key, in a team and for an end user when given, costing `nano`. */
function record(
  id: string,
  keyId: string,
  extra: { team?: string; endUser?: string; nano?: number | null; tokens?: number; at?: number },
): UsageRecord & { team?: string; endUser?: string } {
  const tokens = extra.tokens ?? 100
  return {
    requestId: id,
    keyId,
    groupId: 'g',
    providerId: 'g#0',
    model: 'm',
    upstreamModel: 'm',
    route: 'chat.completions',
    stream: false,
    usage: {
      inputTokens: tokens,
      outputTokens: 0,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: tokens,
    },
    cost:
      extra.nano === null
        ? null
        : {
            nanoUsd: extra.nano ?? 1000,
            listNanoUsd: extra.nano ?? 1000,
            price: { model: 'm', input: 1, output: 1 } as never,
          },
    outcome: 'ok',
    status: 200,
    startedAt: extra.at ?? Date.now() - 1000,
    durationMs: 5,
    ...(extra.team === undefined ? {} : { team: extra.team }),
    ...(extra.endUser === undefined ? {} : { endUser: extra.endUser }),
  }
}

describe('teams in Postgres', () => {
  it('creates, lists, gets and updates teams; refuses a taken id and bad input', async () => {
    const created = await createTeam(options, {
      id: 'data',
      name: 'Data team',
      groups: ['gpt'],
      quotaTokens: 1_000_000,
      limits: { requestsPerMinute: 60 },
      budget: { usd: 500, per: 'month' },
    })
    expect(created).toMatchObject({
      id: 'data',
      name: 'Data team',
      groups: ['gpt'],
      quotaTokens: 1_000_000,
      limits: { requestsPerMinute: 60 },
      budget: [{ usd: 500, per: 'month' }],
    })
    await createTeam(options, { id: 'app' })
    await expect(createTeam(options, { id: 'data' })).rejects.toThrow(/team with id "data" exists/)
    await expect(createTeam(options, { id: 'bad id!' })).rejects.toBeInstanceOf(KeyAdminError)
    await expect(createTeam(options, { id: 'x', quotaTokens: -5 })).rejects.toThrow(/quotaTokens/)

    expect((await listTeams(options)).map((team) => team.id)).toEqual(['app', 'data'])
    const updated = await updateTeam(options, 'data', {
      name: null,
      groups: null,
      limits: { requestsPerMinute: null, concurrency: 4 },
      budget: [
        { usd: 20, per: 'day' },
        { usd: 400, per: 'month' },
      ],
    })
    expect(updated).toMatchObject({
      id: 'data',
      name: undefined,
      groups: undefined,
      quotaTokens: 1_000_000,
      limits: { concurrency: 4 },
      budget: [
        { usd: 20, per: 'day' },
        { usd: 400, per: 'month' },
      ],
    })
    expect(await getTeam(options, 'data')).toEqual(updated)
    expect(await updateTeam(options, 'nobody', { name: 'x' })).toBeUndefined()
    expect(await getTeam(options, 'nobody')).toBeUndefined()
  })

  it('gives keys a team: an unknown one is refused naming it, a config team is taken', async () => {
    await createTeam(options, { id: 'platform' })
    const { key, stored } = await createKey(options, { id: 'k-platform', team: 'platform' })
    expect(stored.team).toBe('platform')
    await expect(createKey(options, { team: 'ghost' })).rejects.toThrow(/No team "ghost"/)
    await expect(createKey(options, { team: 'ghost' })).rejects.toBeInstanceOf(KeyAdminError)
    // A team the config defines (`teams[]`) has no row: the caller names it.
    const fromConfig = await createKey(options, { team: 'ops' }, { otherTeams: ['ops'] })
    expect(fromConfig.stored.team).toBe('ops')

    await expect(updateKey(options, 'k-platform', { team: 'ghost' })).rejects.toThrow(
      /No team "ghost"/,
    )
    expect((await updateKey(options, 'k-platform', { team: null }))?.team).toBeUndefined()
    expect((await updateKey(options, 'k-platform', { team: 'platform' }))?.team).toBe('platform')
    expect((await listKeys(options, { team: 'platform' })).map((k) => k.id)).toEqual(['k-platform'])
    expect((await getKey(options, 'k-platform'))?.team).toBe('platform')

    // The gateway's key store hands the team to the meter with the key's record.
    const store = createPostgresKeyStore({ ...options, cacheTtlMs: 0 })
    expect(await store.lookup(key)).toMatchObject({ id: 'k-platform', team: 'platform' })
    const alone = await createKey(options, { id: 'k-alone' })
    expect(await store.lookup(alone.key)).not.toHaveProperty('team')
    await store.close()
  })

  it('serves teams to the gateway from a cache, and fails closed when Postgres does', async () => {
    let queries = 0
    let failing = false
    const client: PostgresClient = {
      query: (text, params) => {
        queries += 1
        if (failing) return Promise.reject(Object.assign(new Error('down'), { code: 'ECONNRESET' }))
        return database.pool.query(text, params)
      },
    }
    let now = 1_000_000
    const teams = createPostgresTeamStore({ client, schema: 'teams', now: () => now })
    const [first, second] = await Promise.all([teams.lookup('app'), teams.lookup('app')])
    expect(first).toEqual({
      id: 'app',
      name: 'app',
      groups: undefined,
      quotaTokens: undefined,
      limits: undefined,
      budgets: undefined,
    })
    expect(second).toEqual(first)
    expect(queries).toBe(1)
    expect(await teams.lookup('app')).toEqual(first)
    expect(await teams.lookup('ghost')).toBeUndefined()
    expect(queries).toBe(2)

    await updateTeam(options, 'app', { budget: { usd: 5, per: 'day' } })
    now += 5001
    expect(await teams.lookup('app')).toMatchObject({ budgets: [{ usd: 5, per: 'day' }] })

    failing = true
    now += 5001
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const refused = await Promise.resolve(teams.lookup('app')).catch((error: unknown) => error)
    expect(String(logged.mock.calls[0]?.[0])).toMatch(/team lookup in Postgres failed/)
    logged.mockRestore()
    expect(refused).toBeInstanceOf(GatewayError)
    expect(refused).toMatchObject({ status: 503, headers: { 'retry-after': '1' } })
  })

  it('writes the team and end user of each request, rolls teams up, and reports spend by team', async () => {
    await createTeam(options, { id: 'alpha' })
    await createTeam(options, { id: 'beta' })
    const ledger = createPostgresLedger({ ...options, flushIntervalMs: 60_000 })
    const at = Date.now() - 1000
    ledger.record(record('r1', 'ka1', { team: 'alpha', endUser: 'user-1', nano: 1000, at }))
    ledger.record(record('r2', 'ka1', { team: 'alpha', endUser: 'user-2', nano: 3000 }))
    ledger.record(record('r3', 'ka2', { team: 'alpha', endUser: 'user-1', nano: 500 }))
    ledger.record(record('r4', 'kb1', { team: 'beta', nano: null, tokens: 40 }))
    ledger.record(record('r5', 'kn', { nano: 7000 }))
    // A replayed request (same id and start) is written and rolled up once.
    ledger.record(record('r1', 'ka1', { team: 'alpha', endUser: 'user-1', nano: 1000, at }))
    await ledger.flush()
    expect(ledger.stats()).toMatchObject({ written: 5, rejected: 0 })

    const stored = await database.pool.query(
      `SELECT request_id, team, end_user FROM teams.mg_usage_ledger ORDER BY request_id`,
    )
    expect(stored.rows).toEqual([
      { request_id: 'r1', team: 'alpha', end_user: 'user-1' },
      { request_id: 'r2', team: 'alpha', end_user: 'user-2' },
      { request_id: 'r3', team: 'alpha', end_user: 'user-1' },
      { request_id: 'r4', team: 'beta', end_user: null },
      { request_id: 'r5', team: null, end_user: null },
    ])

    const org = await organisationUsage(options)
    expect(org.totals).toMatchObject({ requests: 5, costNanoUsd: 11_500, unpricedRequests: 1 })
    expect(
      org.teams.map(({ team, requests, costNanoUsd, unpricedRequests }) => ({
        team,
        requests,
        costNanoUsd,
        unpricedRequests,
      })),
    ).toEqual([
      { team: 'alpha', requests: 3, costNanoUsd: 4500, unpricedRequests: 0 },
      { team: 'beta', requests: 1, costNanoUsd: 0, unpricedRequests: 1 },
    ])
    // One key's share names only that key's team.
    const oneKey = await organisationUsage(options, { keyId: 'ka2' })
    expect(oneKey.teams.map((row) => [row.team, row.costNanoUsd])).toEqual([['alpha', 500]])
    // Per routing group, from its own rollup: all five in group g; one key's share is its own.
    expect(org.groups!.map((row) => [row.groupId, row.requests, row.costNanoUsd])).toEqual([
      ['g', 5, 11_500],
    ])
    expect(oneKey.groups!.map((row) => [row.groupId, row.requests, row.costNanoUsd])).toEqual([
      ['g', 1, 500],
    ])

    const alpha = await teamUsage(options, 'alpha')
    expect(alpha.totals).toMatchObject({ requests: 3, totalTokens: 300, costNanoUsd: 4500 })
    expect(alpha.lifetime).toMatchObject({ requests: 3, costNanoUsd: 4500 })
    expect(alpha.keys.map((row) => [row.keyId, row.costNanoUsd])).toEqual([
      ['ka1', 4000],
      ['ka2', 500],
    ])
    expect(alpha.days).toHaveLength(1)
    expect(alpha.days[0]).toMatchObject({ day: new Date().toISOString().slice(0, 10) })
    expect((await teamUsage(options, 'nobody')).totals.requests).toBe(0)

    // The console's reports select one team, or one end user of a key, as the memory ledger does.
    const reports = createPostgresUsageReports(options)
    const today = new Date().toISOString().slice(0, 10)
    const alphaReport = await reports.usageReport({ since: today, until: today, team: 'alpha' })
    expect(alphaReport.totals).toMatchObject({ requests: 3, costNanoUsd: 4500 })
    expect(alphaReport.keys.map((row) => row.keyId)).toEqual(['ka1', 'ka2'])
    // The per-team rollup has no group: a team's report says nothing per group.
    expect(alphaReport.groups).toBeUndefined()
    const userReport = await reports.usageReport({
      since: today,
      until: today,
      keyId: 'ka1',
      endUser: 'user-1',
    })
    expect(userReport.totals).toMatchObject({ requests: 1, costNanoUsd: 1000, totalTokens: 100 })
    expect(userReport.days.map((row) => row.day)).toEqual([today])
    expect(userReport.groups!.map((row) => [row.groupId, row.requests, row.costNanoUsd])).toEqual([
      ['g', 1, 1000],
    ])

    const users = await endUserUsage(options, 'ka1')
    expect(users.endUsers.map((row) => [row.endUser, row.requests, row.costNanoUsd])).toEqual([
      ['user-2', 1, 3000],
      ['user-1', 1, 1000],
    ])

    // Budgets of a team, the organisation and an end user re-seed from their own requests.
    const reseed = ledgerReseed(ledger)
    const since = { kind: 'month' as const, startMs: Date.now() - 86_400_000 * 2 }
    expect(
      await reseed('alpha', {
        ...since,
        measure: 'nanoUsd',
        subject: { kind: 'team', id: 'alpha' },
      }),
    ).toBe(4500)
    expect(
      await reseed('alpha', {
        ...since,
        measure: 'tokens',
        subject: { kind: 'team', id: 'alpha' },
      }),
    ).toBe(300)
    expect(
      await reseed('org', {
        ...since,
        measure: 'nanoUsd',
        subject: { kind: 'organisation', id: 'org' },
      }),
    ).toBe(11_500)
    expect(
      await reseed('user-1', {
        ...since,
        measure: 'nanoUsd',
        subject: { kind: 'end-user', id: 'user-1', keyId: 'ka1' },
      }),
    ).toBe(1000)
    expect(await reseed('ka1', { ...since, measure: 'nanoUsd' })).toBe(4000)
    await ledger.close()
  })

  it("re-seeds a team's, the organisation's and an end user's budget through ledger indexes", async () => {
    // Each re-seed reads the ledger's rows since the start of a day (an end user's: of its
    // period). Asked with sequential scans priced out, each query's plan names the index schema
    // version 7 made for it — without it, a team's read every partition of the ledger.
    const connection = await database.pool.connect()
    try {
      const sums: { text: string; params: unknown[] }[] = []
      const recording: PostgresClient = {
        query: async (text, params) => {
          if (/\bsum\(/.test(text)) sums.push({ text, params: params ?? [] })
          return connection.query(text, params)
        },
      }
      const ledger = createPostgresLedger({ client: recording, schema: 'teams' })
      const reseed = ledgerReseed(ledger)
      // Mid-morning of two days ago: a part-day from the ledger, whole days from the rollups.
      const startMs = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 2 * 86_400_000 + 36e5
      const period = { kind: 'month' as const, startMs, measure: 'nanoUsd' as const }
      await reseed('alpha', { ...period, subject: { kind: 'team', id: 'alpha' } })
      await reseed('org', { ...period, subject: { kind: 'organisation', id: 'org' } })
      await reseed('user-1', {
        ...period,
        subject: { kind: 'end-user', id: 'user-1', keyId: 'ka1' },
      })
      await ledger.close()
      expect(sums).toHaveLength(3)
      await connection.query('SET enable_seqscan = off')
      const plans: string[] = []
      for (const { text, params } of sums) {
        const { rows } = await connection.query(`EXPLAIN ${text}`, params)
        plans.push(rows.map((row) => String(row['QUERY PLAN'])).join('\n'))
      }
      const [team, org, endUser] = plans
      expect(team).toMatch(/mg_usage_ledger_\w+_team_ended_at_idx/)
      expect(org).toMatch(/mg_usage_ledger_(default|p\d{6})_ended_at_idx/)
      expect(endUser).toMatch(/mg_usage_ledger_\w+_key_id_end_user_ended_at_idx/)
      for (const plan of plans) expect(plan).not.toMatch(/Seq Scan on mg_usage_ledger/)
    } finally {
      await connection.query('RESET enable_seqscan')
      connection.release()
    }
  })
})
