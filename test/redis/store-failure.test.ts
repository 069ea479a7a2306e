import Anthropic from '@anthropic-ai/sdk'
import { ApiError, GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { createClient } from 'redis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createGateway, type GatewayConfig, type UsageMeter } from '../../src/index'
import { serveGateway } from '../../src/node/index'
import { createRedisUsageMeter, type StoreFailurePolicy } from '../../src/redis/index'
import { createTestLedger } from '../helpers/ledger'
import { gatedUpstreams } from '../helpers/limited-gateway'
import {
  connectRedis,
  deletePrefix,
  redisUrl,
  scriptClient,
  startPrivateRedis,
  uniquePrefix,
  type TestRedis,
} from '../helpers/redis'
import { startTcpProxy } from '../helpers/tcp-proxy'

const keys = {
  budget: 'sk-store-budget-0123456789abcdefABCD',
  windows: 'sk-store-windows-0123456789abcdefABC',
} as const
const keyConfigs: GatewayConfig['keys'] = [
  { key: keys.budget, id: 'budget', limits: { tokensPerDay: 100_000 } },
  { key: keys.windows, id: 'windows', limits: { requestsPerMinute: 10 } },
]
const hello = [{ role: 'user' as const, content: 'Hello' }]
/** How long to wait for work that finishes off the request path (generous: CI machines are shared). */
const eventually = { timeout: 10_000, interval: 20 }
const timeoutMs = 250

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A gateway whose Redis meter reaches Redis at `url`, with the log lines it wrote. */
async function startGateway(url: string, onFailure: StoreFailurePolicy = {}) {
  const redis = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 500, reconnectStrategy: () => 50 },
  })
  redis.on('error', () => undefined)
  await redis.connect()
  const prefix = uniquePrefix('failure')
  const logs: { level: 'warn' | 'error'; message: string }[] = []
  const ledger = createTestLedger()
  const meter = ledger.wrap(
    createRedisUsageMeter({
      client: scriptClient(redis as TestRedis),
      prefix,
      timeoutMs,
      probeIntervalMs: 200,
      onFailure,
      reseed: ledger.reseed,
      logger: {
        warn: (message) => logs.push({ level: 'warn', message }),
        error: (message) => logs.push({ level: 'error', message }),
      },
    }),
  )
  const upstream = gatedUpstreams()
  const served = await serveGateway(
    createGateway({ groups: upstream.groups, keys: keyConfigs, usageMeter: meter as UsageMeter }),
    { port: 0 },
  )
  cleanups.push(async () => {
    upstream.open()
    await served.close()
    redis.destroy()
    // What the meter wrote through a proxy to the machine's Redis stays there (some of it without
    // an expiry): remove it over a connection of its own, since the test may have cut this one.
    const shared = await connectRedis(redisUrl)
    await deletePrefix(shared, prefix)
    shared.destroy()
  })
  const openai = (key: string) =>
    new OpenAI({ apiKey: key, baseURL: `${served.url}/v1`, maxRetries: 0 })
  return { url: served.url, prefix, logs, ledger, upstream, openai }
}

async function timed<T>(work: Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now()
  const result = await work
  return { result, ms: performance.now() - started }
}

const settle = <T>(work: Promise<T>) =>
  work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  )

describe('when Redis does not answer', () => {
  it('answers budget calls 503 within the store timeout in every protocol, enforces windows at a local share, and logs each change once', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 6379 })
    cleanups.push(() => proxy.close())
    const gateway = await startGateway(`redis://127.0.0.1:${proxy.port}`)
    await gateway
      .openai(keys.budget)
      .chat.completions.create({ model: 'gpt-test', messages: hello })
    await gateway
      .openai(keys.windows)
      .chat.completions.create({ model: 'gpt-test', messages: hello })

    proxy.stall()
    const first = await timed(
      settle(
        gateway.openai(keys.budget).chat.completions.create({ model: 'gpt-test', messages: hello }),
      ),
    )
    expect(first.result.ok).toBe(false)
    expect((first.result as { error: unknown }).error).toMatchObject({
      status: 503,
      code: 'service_unavailable',
    })
    // Bounded by the store timeout (250 ms), not by Redis: a stalled connection never answers.
    expect(first.ms).toBeLessThan(timeoutMs + 1500)
    // Now known down: refused at once, in each caller's protocol.
    const again = await timed(
      settle(
        gateway.openai(keys.budget).chat.completions.create({ model: 'gpt-test', messages: hello }),
      ),
    )
    expect(again.ms).toBeLessThan(timeoutMs)
    const claude = await new Anthropic({
      apiKey: keys.budget,
      baseURL: gateway.url,
      maxRetries: 0,
    }).messages
      .create({ model: 'claude-test', max_tokens: 16, messages: hello })
      .catch((error: unknown) => error)
    expect(claude).toBeInstanceOf(Anthropic.InternalServerError)
    expect(claude).toMatchObject({
      status: 503,
      error: { type: 'error', error: { type: 'api_error' } },
    })
    const gemini = await new GoogleGenAI({
      apiKey: keys.budget,
      httpOptions: { baseUrl: gateway.url },
    }).models
      .generateContent({ model: 'gemini-test', contents: 'Hi' })
      .catch((error: unknown) => error)
    expect(gemini).toBeInstanceOf(ApiError)
    expect(gemini).toMatchObject({ status: 503 })
    expect((gemini as Error).message).toContain('UNAVAILABLE')

    // 1 of 10 requests per minute was used in Redis; locally this instance allows 10 / 2 = 5.
    const windows = await Promise.all(
      Array.from({ length: 10 }, () =>
        settle(
          gateway
            .openai(keys.windows)
            .chat.completions.create({ model: 'gpt-test', messages: hello }),
        ),
      ),
    )
    expect(windows.filter((result) => result.ok)).toHaveLength(5)
    expect(windows.find((result) => !result.ok)).toMatchObject({
      error: { status: 429, code: 'rate_limit_exceeded' },
    })

    expect(gateway.logs).toEqual([
      {
        level: 'error',
        message: expect.stringMatching(
          /Redis usage store is not answering \(The store did not answer within 250 ms\.\)\. Keys with token or money budgets are refused \(503\); per-minute windows and concurrency are enforced by each instance alone at 1\/2 of each limit/,
        ),
      },
    ])

    proxy.restore()
    await vi.waitFor(
      async () => {
        const answer = await settle(
          gateway
            .openai(keys.budget)
            .chat.completions.create({ model: 'gpt-test', messages: hello }),
        )
        expect(answer.ok).toBe(true)
      },
      { timeout: 10_000, interval: 100 },
    )
    expect(gateway.logs).toHaveLength(2)
    expect(gateway.logs[1]).toMatchObject({
      level: 'warn',
      message: expect.stringContaining('Redis usage store is answering again'),
    })
  })

  it('follows the configured policy: windows closed refuse with 503, budgets open admit', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 6379 })
    cleanups.push(() => proxy.close())
    const gateway = await startGateway(`redis://127.0.0.1:${proxy.port}`, {
      windows: 'closed',
      budgets: 'open',
    })
    proxy.cut()
    const windows = await settle(
      gateway.openai(keys.windows).chat.completions.create({ model: 'gpt-test', messages: hello }),
    )
    expect(windows).toMatchObject({ ok: false, error: { status: 503 } })
    const budget = await settle(
      gateway.openai(keys.budget).chat.completions.create({ model: 'gpt-test', messages: hello }),
    )
    expect(budget.ok).toBe(true)
    expect(gateway.logs).toHaveLength(1)
    expect(gateway.logs[0]!.message).toContain(
      'Token and money budgets are NOT enforced (onFailure.budgets: "open")',
    )
    expect(gateway.logs[0]!.message).toContain(
      'keys with per-minute windows or concurrency limits are refused (503)',
    )
  })

  it('re-seeds budgets from the ledger after Redis was stopped mid-load and came back empty, counting each request once', async () => {
    const server = await startPrivateRedis()
    cleanups.push(() => server.stop())
    const gateway = await startGateway(server.url)
    const client = gateway.openai(keys.budget)
    const used: number[] = []
    const call = async () => {
      const answer = await client.chat.completions.create({ model: 'gpt-test', messages: hello })
      used.push(answer.usage!.total_tokens)
    }
    // Load before the outage.
    await Promise.all(Array.from({ length: 6 }, call))
    // Requests in flight when Redis dies: reserved, then settled while it is down.
    gateway.upstream.shut()
    const inFlight = Promise.all(Array.from({ length: 4 }, call))
    await vi.waitFor(() => expect(gateway.upstream.calls()).toBe(10), eventually)
    await server.stop()
    const seedsBefore = gateway.ledger.reseeds.length
    const refused = await settle(
      client.chat.completions.create({ model: 'gpt-test', messages: hello }),
    )
    expect(refused).toMatchObject({ ok: false, error: { status: 503 } })
    gateway.upstream.open()
    await inFlight
    // The four settles Redis did not take are retried in the background; their ledger rows wait
    // for them (a re-seed must not count a request before Redis does).
    expect(gateway.ledger.rows).toHaveLength(6)

    const beforeOutage = used.slice(0, 6).reduce((total, tokens) => total + tokens, 0)
    const beforeRestart = used.reduce((total, tokens) => total + tokens, 0)
    // Redis returns with nothing: no budget, no totals, no reservations.
    await server.start()
    await vi.waitFor(
      async () => {
        const answer = await settle(call())
        expect(answer.ok).toBe(true)
      },
      { timeout: 10_000, interval: 100 },
    )
    await Promise.all(Array.from({ length: 5 }, call))
    // Settles run after the answers (off the request path): wait for the last ledger rows.
    await vi.waitFor(() => expect(gateway.ledger.rows).toHaveLength(used.length), eventually)
    const sum = used.reduce((total, tokens) => total + tokens, 0)
    expect(gateway.ledger.total('budget')).toBe(sum)
    const usage = await fetch(`${gateway.url}/v1/usage`, {
      headers: { authorization: `Bearer ${keys.budget}` },
    })
    const body = (await usage.json()) as Record<string, any>
    expect(body['limits']['tokensPerDay']).toMatchObject({
      used: sum,
      reserved: 0,
      remaining: 100_000 - sum,
    })
    // Seeded once after the restart: from the 6 rows written before the outage when the seed came
    // first (the retried settles then add the other 4), or from all 10 when the retries landed
    // first (on a missing budget a settle leaves it to the seed).
    const seeds = gateway.ledger.reseeds.slice(seedsBefore)
    expect(seeds).toHaveLength(1)
    expect(seeds[0]).toMatchObject({ keyId: 'budget', kind: 'day' })
    expect([beforeOutage, beforeRestart]).toContain(seeds[0]!.tokens)
    expect(gateway.logs.map((line) => line.level)).toEqual(['error', 'warn'])
  })

  it('re-seeds a flushed budget once, even with many requests asking at the same time', async () => {
    const redis = await connectRedis(redisUrl)
    cleanups.push(async () => redis.destroy())
    const gateway = await startGateway(redisUrl)
    cleanups.push(async () => void (await deletePrefix(redis, gateway.prefix)))
    const client = gateway.openai(keys.budget)
    const totals: number[] = []
    const call = async () =>
      totals.push(
        (await client.chat.completions.create({ model: 'gpt-test', messages: hello })).usage!
          .total_tokens,
      )
    await Promise.all(Array.from({ length: 5 }, call))
    await vi.waitFor(() => expect(gateway.ledger.rows).toHaveLength(5), eventually)
    const seedsBefore = gateway.ledger.reseeds.length
    expect(await deletePrefix(redis, gateway.prefix)).toBeGreaterThan(0)
    await Promise.all(Array.from({ length: 20 }, call))
    await vi.waitFor(() => expect(gateway.ledger.rows).toHaveLength(25), eventually)
    const sum = totals.reduce((total, tokens) => total + tokens, 0)
    const usage = await fetch(`${gateway.url}/v1/usage`, {
      headers: { authorization: `Bearer ${keys.budget}` },
    })
    expect(((await usage.json()) as Record<string, any>)['limits']['tokensPerDay']).toMatchObject({
      used: sum,
    })
    const before = totals.slice(0, 5).reduce((total, tokens) => total + tokens, 0)
    expect(gateway.ledger.reseeds.slice(seedsBefore)).toEqual([
      { keyId: 'budget', kind: 'day', tokens: before },
    ])
    expect(gateway.logs).toEqual([])
  })
})
