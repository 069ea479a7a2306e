import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  createKey,
  createPostgresKeyStore,
  createPostgresLedger,
  keyUsage,
  migrate,
  revokeKey,
  type PostgresListener,
  type PostgresOptions,
} from '../../src/postgres/index'
import type { UsageRecord } from '../../src/usage/usage-meter'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { repoRoot, runtimeBin } from '../helpers/spawn-runtime'

/**
 * The adapters of docs/shared-state.md for Postgres drivers other than `pg`, run as written against the
 * machine's Postgres: postgres.js (client and listener) here, Bun's built-in `SQL` in Bun itself.
 */
let database: TestDatabase
let sql: postgres.Sql
beforeAll(async () => {
  database = await createTestDatabase('adapters')
  sql = postgres(database.url, { max: 4, onnotice: () => undefined })
})
afterAll(async () => {
  await sql.end()
  await database.drop()
})

const record = (requestId: string, keyId: string, totalTokens: number): UsageRecord => ({
  requestId,
  keyId,
  groupId: 'g',
  providerId: 'p',
  model: 'm',
  upstreamModel: 'm',
  route: 'chat.completions',
  stream: false,
  usage: {
    inputTokens: totalTokens - 1,
    outputTokens: 1,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    cacheWrite1hInputTokens: 0,
    reasoningTokens: 0,
    totalTokens,
  },
  outcome: 'ok',
  status: 200,
  startedAt: Date.now(),
  durationMs: 5,
})

describe('postgres.js with the documented adapter', () => {
  it('migrates, stores and finds keys, hears revocations, and keeps the ledger', async () => {
    // The documented adapter, as written.
    const db: PostgresOptions = {
      client: {
        query: async (text, params) => ({ rows: await sql.unsafe(text, params as never[]) }),
      },
      prefix: 'pgjs',
    }
    const listener: PostgresListener = {
      async listen(channel, on) {
        const { unlisten } = await sql.listen(channel, on.onNotification, on.onConnected)
        return { close: unlisten }
      },
    }
    expect((await migrate(db)).applied.length).toBeGreaterThan(0)
    expect((await migrate(db)).applied).toEqual([])
    const { key, stored } = await createKey(db, {
      name: 'pgjs',
      limits: { tokensPerDay: 1000, concurrency: 2 },
      quotaTokens: 5000,
    })
    const store = createPostgresKeyStore({ ...db, listener, cacheTtlMs: 60_000 })
    await store.ready()
    const found = await store.lookup(key)
    expect(found).toMatchObject({
      id: stored.id,
      disabled: false,
      name: 'pgjs',
      limits: { tokensPerDay: 1000, concurrency: 2 },
      quota: { tokens: 5000 },
    })
    // Cached for a minute, yet refused at once: the listener heard the trigger's NOTIFY.
    await revokeKey(db, stored.id)
    await vi.waitFor(async () => expect((await store.lookup(key))?.disabled).toBe(true), {
      timeout: 5000,
      interval: 20,
    })
    await store.close()

    const ledger = createPostgresLedger(db)
    const replayed = record('pgjs-1', stored.id, 40)
    ledger.record(replayed)
    ledger.record(record('pgjs-2', stored.id, 60))
    ledger.record(replayed)
    await ledger.close()
    expect(ledger.stats()).toMatchObject({ written: 2, rejected: 0, lost: 0 })
    const dayStart = Math.floor(Date.now() / 86_400_000) * 86_400_000
    const reader = createPostgresLedger(db)
    expect(await reader.usedSince(stored.id, dayStart)).toBe(100)
    await reader.close()
    const report = await keyUsage(db, stored.id)
    expect(report.totals).toMatchObject({ requests: 2, totalTokens: 100 })
  })
})

describe("Bun's SQL with the documented adapter", () => {
  it('migrates, stores and finds keys, and keeps the ledger, in Bun', { timeout: 60_000 }, () => {
    const program = join(tmpdir(), `mg-bun-sql-${crypto.randomUUID()}.mjs`)
    writeFileSync(
      program,
      `import { SQL } from 'bun'
import { createKey, createPostgresKeyStore, createPostgresLedger, keyUsage, migrate } from ${JSON.stringify(join(repoRoot, 'dist/postgres/index.js'))}
const sql = new SQL(process.env.DATABASE_URL)
const db = { client: { query: async (text, params) => ({ rows: await sql.unsafe(text, params) }) }, prefix: 'bunsql' }
const first = await migrate(db)
const again = await migrate(db)
const { key, stored } = await createKey(db, { name: 'bun', limits: { tokensPerMonth: 9000 }, quotaTokens: 100 })
const store = createPostgresKeyStore(db)
const found = await store.lookup(key)
const wrong = await store.lookup(key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a'))
await store.close()
const ledger = createPostgresLedger(db)
const row = (id, tokens) => ({ requestId: id, keyId: stored.id, groupId: 'g', providerId: 'p',
  model: 'm', upstreamModel: 'm', route: 'messages', stream: true, outcome: 'ok', status: 200,
  usage: { inputTokens: tokens, outputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, cacheWrite1hInputTokens: 0, reasoningTokens: 0, totalTokens: tokens },
  startedAt: Date.now(), durationMs: 1 })
ledger.record(row('b1', 30))
ledger.record(row('b2', 12))
await ledger.close()
const used = await createPostgresLedger(db).usedSince(stored.id, 0)
const report = await keyUsage(db, stored.id)
console.log(JSON.stringify({ applied: [first.applied.length > 0, again.applied.length],
  found: { id: found?.id === stored.id, limits: found?.limits, quota: found?.quota },
  wrong: wrong === undefined, stats: ledger.stats(), used, totals: report.totals }))
await sql.close()
`,
    )
    const output = execFileSync(runtimeBin('bun'), [program], {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: database.url },
    })
    expect(JSON.parse(output)).toMatchObject({
      applied: [true, 0],
      found: { id: true, limits: { tokensPerMonth: 9000 }, quota: { tokens: 100 } },
      wrong: true,
      stats: { written: 2, rejected: 0, lost: 0 },
      used: 42,
      totals: { requests: 2, totalTokens: 42 },
    })
  })
})
