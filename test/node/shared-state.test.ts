import OpenAI, { RateLimitError } from 'openai'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createKey } from '../../src/postgres/index'
import { serveCli, writeConfig, type ServedCli } from '../helpers/cli'
import { startOpenAIHttpUpstream } from '../helpers/openai-http-upstream'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { connectRedis, deletePrefix, redisUrl, type TestRedis } from '../helpers/redis'

/**
 * The headline: two gateway processes (the CLI) sharing Redis (the meter) and Postgres
 * (keys and the ledger), 1,000 concurrent streams through the openai SDK with random client
 * aborts, and daily budgets that run out mid-run.
 */
let database: TestDatabase
let redis: TestRedis
let upstream: Awaited<ReturnType<typeof startOpenAIHttpUpstream>>
let clientsFor: (key: string) => OpenAI[]
const instances: ServedCli[] = []
const prefix = `ss_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
const upstreamKey = 'sk-upstream-shared-state-0123456789'
const story = 'Tell me a short story about a lighthouse keeper and a storm. '.repeat(16)

beforeAll(async () => {
  database = await createTestDatabase('shared_state')
  redis = await connectRedis()
  upstream = await startOpenAIHttpUpstream({ apiKey: upstreamKey, chunkDelayMs: 15 })
  const config = {
    groups: [
      {
        id: 'gpt',
        protocol: 'openai',
        models: ['gpt-4o-mini'],
        upstreams: [{ baseUrl: upstream.baseUrl, apiKey: upstreamKey }],
      },
    ],
    state: {
      redis: redisUrl,
      postgres: '${MG_TEST_DATABASE_URL}',
      prefix,
      // The default 200 ms store timeout counts event-loop lag as Redis time: 500 new streams
      // per process at once on two shared cores trip it, and budgets then fail closed (503).
      // This test is about sharing, not the failure policy (tested on its own), hence 5 s.
      redisTimeoutMs: 5000,
      ledger: { flushIntervalMs: 200 },
    },
  }
  const path = writeConfig(config)
  const env = { MG_TEST_DATABASE_URL: database.url }
  instances.push(
    ...(await Promise.all([
      serveCli(['--config', path, '--port', '0'], env),
      serveCli(['--config', path, '--port', '0'], env),
    ])),
  )
  clientsFor = (key) =>
    instances.map(
      (instance) =>
        new OpenAI({ apiKey: key, baseURL: `${instance.url}/v1`, maxRetries: 0, timeout: 120_000 }),
    )
})
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop('SIGKILL')))
  await upstream.close()
  await deletePrefix(redis, prefix)
  redis.destroy()
  await database.drop()
})

/** A small deterministic generator, so that a failing run can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Outcome =
  | { index: number; kind: 'completed'; requestId: string; usage: { total_tokens: number } }
  | { index: number; kind: 'left'; requestId: string }
  | { index: number; kind: 'refused'; code: string | null | undefined }

/** One SDK stream; the client leaves after `leaveAfter` chunks when that is set. */
async function stream(client: OpenAI, index: number, leaveAfter?: number): Promise<Outcome> {
  const controller = new AbortController()
  try {
    const { data, response } = await client.chat.completions
      .create(
        {
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: `[#${index}] ${story}` }],
          stream: true,
          stream_options: { include_usage: true },
          max_tokens: 24,
        },
        { signal: controller.signal },
      )
      .withResponse()
    const requestId = response.headers.get('x-request-id')!
    let chunks = 0
    let usage: { total_tokens: number } | undefined
    try {
      for await (const chunk of data) {
        if (chunk.usage) usage = chunk.usage
        if (leaveAfter !== undefined && ++chunks > leaveAfter) {
          controller.abort()
          break
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error
    }
    if (leaveAfter !== undefined) return { index, kind: 'left', requestId }
    return { index, kind: 'completed', requestId, usage: usage! }
  } catch (error) {
    if (error instanceof RateLimitError) return { index, kind: 'refused', code: error.code }
    throw error
  }
}

/** The key's day budget as the shared meter reports it, once no request holds any of it. */
async function settledBudget(key: string): Promise<number> {
  const read = async () =>
    (
      (await (
        await fetch(`${instances[0]!.url}/v1/usage`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).json()) as { limits: { tokensPerDay: { used: number; reserved: number } } }
    ).limits.tokensPerDay
  await vi.waitFor(async () => expect((await read()).reserved).toBe(0), {
    timeout: 30_000,
    interval: 100,
  })
  return (await read()).used
}

/**
 * Checks the ledger against what the clients and the upstream saw: one row per admitted request
 * and none for a refused one; every row's tokens what the upstream reported (unless the gateway
 * had to estimate them); the rollup equal to the rows. Returns the tokens the ledger holds.
 */
async function checkLedger(keyId: string, outcomes: readonly Outcome[]): Promise<number> {
  const admitted = outcomes.filter((outcome) => outcome.kind !== 'refused')
  // Rows are written within the ledger's flush interval (200 ms here) after each settle.
  await vi.waitFor(
    async () => {
      const { rows } = await database.pool.query(
        `SELECT count(*)::int AS n FROM ${prefix}_usage_ledger WHERE key_id = $1`,
        [keyId],
      )
      expect(rows[0].n).toBe(admitted.length)
    },
    { timeout: 30_000, interval: 100 },
  )
  const { rows } = await database.pool.query<{
    request_id: string
    outcome: string
    total_tokens: string | null
    estimated: boolean
  }>(
    `SELECT request_id, outcome, total_tokens::text, estimated FROM ${prefix}_usage_ledger WHERE key_id = $1`,
    [keyId],
  )
  const byId = new Map(rows.map((row) => [row.request_id, row]))
  expect(byId.size).toBe(admitted.length)
  let tokens = 0
  for (const outcome of admitted) {
    const row = byId.get(outcome.requestId)
    expect(row, `a ledger row for request ${outcome.requestId}`).toBeDefined()
    const reported = upstream.reported.get(outcome.index)
    if (outcome.kind === 'completed') {
      expect(row!.outcome).toBe('ok')
      expect(outcome.usage.total_tokens).toBe(reported!.total)
    } else {
      // A client that left may still find the gateway done: its buffers held the whole stream.
      expect(['aborted', 'ok']).toContain(row!.outcome)
    }
    if (row!.outcome === 'ok') expect(row!.total_tokens).not.toBeNull()
    if (row!.total_tokens === null) continue
    if (!row!.estimated) expect(Number(row!.total_tokens)).toBe(reported!.total)
    tokens += Number(row!.total_tokens)
  }
  const daily = await database.pool.query(
    `SELECT sum(requests)::int AS requests, coalesce(sum(total_tokens), 0)::int AS tokens
     FROM ${prefix}_usage_daily WHERE key_id = $1`,
    [keyId],
  )
  expect(daily.rows[0]).toEqual({ requests: admitted.length, tokens })
  return tokens
}

function summary(outcomes: readonly Outcome[]) {
  const count = (kind: Outcome['kind']) =>
    outcomes.filter((outcome) => outcome.kind === kind).length
  return { completed: count('completed'), left: count('left'), refused: count('refused') }
}

const largestRequest = () =>
  Math.max(...[...upstream.reported.values()].map((usage) => usage.total))

describe('two gateway processes sharing Redis and Postgres', { timeout: 240_000 }, () => {
  it('1,000 concurrent SDK streams with random aborts: one ledger row each, the upstream’s tokens, Redis and the ledger agreeing', async () => {
    // About 480 requests' estimates fit: the rest are refused while the first ones stream.
    const budget = 150_000
    const { key, stored } = await createKey(
      { client: database.pool, prefix },
      { name: 'headline', limits: { tokensPerDay: budget } },
    )
    const clients = clientsFor(key)
    const random = seeded(8)
    const callsBefore = upstream.calls()
    const started = performance.now()
    const outcomes = await Promise.all(
      Array.from({ length: 1000 }, (_, index) =>
        // About 30 % of clients leave: right after the headers, or after a few chunks.
        stream(clients[index % 2]!, index, random() < 0.3 ? Math.floor(random() * 6) : undefined),
      ),
    )
    const elapsed = performance.now() - started
    const counts = summary(outcomes)
    expect(counts.completed + counts.left + counts.refused).toBe(1000)
    // Refused as spent, or (while requests in flight held the rest) told to retry in a second.
    const refusedCodes = new Set(
      outcomes.flatMap((outcome) => (outcome.kind === 'refused' ? [outcome.code] : [])),
    )
    expect(
      [...refusedCodes].every(
        (code) => code === 'insufficient_quota' || code === 'rate_limit_exceeded',
      ),
    ).toBe(true)
    const usedInRedis = await settledBudget(key)
    const ledgerTokens = await checkLedger(stored.id, outcomes)
    // One upstream call per admitted request, none for a refused one.
    expect(upstream.calls() - callsBefore).toBe(counts.completed + counts.left)
    // The shared budget counted every request once: Redis and the ledger agree to the token.
    expect(usedInRedis).toBe(ledgerTokens)
    const overshoot = Math.max(0, ledgerTokens - budget)
    console.log(
      `1,000 concurrent streams over 2 processes in ${(elapsed / 1000).toFixed(1)} s: ` +
        `${counts.completed} completed, ${counts.left} left by the client, ${counts.refused} refused ` +
        `(${outcomes.filter((outcome) => outcome.kind === 'refused' && outcome.code === 'rate_limit_exceeded').length} while the rest was held); ` +
        `${counts.completed + counts.left} ledger rows; budget ${budget}, used ${ledgerTokens} (Redis ${usedInRedis}), overshoot ${overshoot}`,
    )
    // Demand (1,000 × about 270 tokens) is nearly twice the budget; about 30 % of clients leave.
    expect(counts.refused).toBeGreaterThan(100)
    expect(counts.left).toBeGreaterThan(50)
  })

  it('a budget drained by 20 workers over both processes overshoots by at most about one request', async () => {
    const budget = 20_000
    const { key, stored } = await createKey(
      { client: database.pool, prefix },
      { name: 'drain', limits: { tokensPerDay: budget } },
    )
    const clients = clientsFor(key)
    const workers = 20
    const outcomes: Outcome[] = []
    let next = 100_000
    let spentInARow = 0
    let held = 0
    await Promise.all(
      Array.from({ length: workers }, async (_, worker) => {
        // Until the budget is plainly spent: 40 insufficient_quota refusals in a row across the
        // workers. A refusal because requests in flight hold the rest is retried shortly.
        while (spentInARow < 40) {
          const outcome = await stream(clients[worker % 2]!, next++)
          outcomes.push(outcome)
          if (outcome.kind === 'refused' && outcome.code === 'rate_limit_exceeded') {
            held += 1
            await new Promise((resolve) => setTimeout(resolve, 100))
            continue
          }
          spentInARow = outcome.kind === 'refused' ? spentInARow + 1 : 0
        }
      }),
    )
    const usedInRedis = await settledBudget(key)
    const ledgerTokens = await checkLedger(stored.id, outcomes)
    expect(usedInRedis).toBe(ledgerTokens)
    const counts = summary(outcomes)
    const overshoot = Math.max(0, ledgerTokens - budget)
    const largest = largestRequest()
    console.log(
      `budget drained by ${workers} workers: ${counts.completed} completed, ${counts.refused} refused (${held} while the rest was held); ` +
        `budget ${budget}, used ${ledgerTokens} (Redis ${usedInRedis}), overshoot ${overshoot} tokens ` +
        `(${(overshoot / largest).toFixed(2)} of the largest request, ${largest} tokens; ${((100 * overshoot) / budget).toFixed(2)} % of the budget)`,
    )
    // Each request holds its whole estimate (about what it uses); once the rest no longer fits
    // one, a request is admitted only with nothing else in flight, holding the rest: so the
    // budget is overshot by at most about one request, whatever the number of workers.
    expect(ledgerTokens).toBeGreaterThanOrEqual(budget - largest)
    expect(overshoot).toBeLessThanOrEqual(largest)
  })
})
