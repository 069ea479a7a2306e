import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import type { GatewayConfig } from '../../src/index'
import { createGatewayWithState, serveGateway } from '../../src/node/index'
import { gatedUpstreams } from '../helpers/limited-gateway'
import { connectRedis, deletePrefix, redisUrl } from '../helpers/redis'

/**
 * Issue 33: budgets above the key — a team's, the organisation's, each end user's — checked and
 * charged with the key's in one reserve, through two gateway instances on one Redis (this test's
 * own prefix). Requests go over HTTP through the official SDKs at their defaults (they retry
 * 429s that say to; a spent budget says not to).
 */
const keys = {
  a: 'sk-team-a-0123456789abcdefABCDEFGH',
  b: 'sk-team-b-0123456789abcdefABCDEFGH',
  c: 'sk-team-c-0123456789abcdefABCDEFGH',
  shared: 'sk-team-shared-0123456789abcdefAB',
}
const hello = [{ role: 'user' as const, content: 'Hello' }]
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** The mock model, priced so that a few requests spend a budget: $1,000 / $2,000 per 1M. */
const prices = {
  'gpt-test': { input: 1000, output: 2000, source: 'test', asOf: '2026-11-26' },
  'claude-test': { input: 1000, output: 2000, source: 'test', asOf: '2026-11-26' },
}
const costOf = (usage: OpenAI.CompletionUsage) =>
  usage.prompt_tokens * 1_000_000 + usage.completion_tokens * 2_000_000

async function twoInstances(config: () => GatewayConfig) {
  return Promise.all(
    [0, 1].map(async () => {
      const served = await serveGateway(await createGatewayWithState(config()), { port: 0 })
      cleanups.push(() => served.close())
      return served
    }),
  )
}

async function redisPrefix() {
  const redis = await connectRedis()
  cleanups.push(async () => redis.destroy())
  const prefix = `tb_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
  cleanups.push(() => deletePrefix(redis, prefix))
  return prefix
}

type Refusal = { status?: number; code?: string; message?: string }

async function drain(clients: OpenAI[], count: number, user?: (index: number) => string) {
  const costs: number[] = []
  const refused: Refusal[] = []
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      try {
        const answer = await clients[index % clients.length]!.chat.completions.create({
          model: 'gpt-test',
          messages: hello,
          max_tokens: 20,
          ...(user === undefined ? {} : { user: user(index) }),
        })
        costs.push(costOf(answer.usage!))
      } catch (error) {
        refused.push(error as Refusal)
      }
    }),
  )
  return { costs, refused, spent: costs.reduce((sum, cost) => sum + cost, 0) }
}

describe('a team budget shared by two keys over two instances', () => {
  it('holds under 120 concurrent requests within the documented bound, then both keys are refused naming the team', async () => {
    const prefix = await redisPrefix()
    const upstream = gatedUpstreams()
    const budget = { usd: 0.3, per: 'day' as const }
    const config = (): GatewayConfig => ({
      groups: upstream.groups,
      prices,
      teams: [{ id: 'data', name: 'Data team', budget }],
      keys: [
        { key: keys.a, id: 'a', team: 'data' },
        { key: keys.b, id: 'b', team: 'data' },
      ],
      state: { redis: redisUrl, prefix },
    })
    const instances = await twoInstances(config)
    // Key a on the first instance and key b on the second, and the other way round.
    const clients = [
      new OpenAI({ apiKey: keys.a, baseURL: `${instances[0]!.url}/v1` }),
      new OpenAI({ apiKey: keys.b, baseURL: `${instances[1]!.url}/v1` }),
      new OpenAI({ apiKey: keys.a, baseURL: `${instances[1]!.url}/v1` }),
      new OpenAI({ apiKey: keys.b, baseURL: `${instances[0]!.url}/v1` }),
    ]
    const { costs, refused, spent } = await drain(clients, 120)
    const limit = budget.usd * 1e9
    const largest = Math.max(...costs)
    console.log(
      `team budget $${budget.usd}/day, two keys over two instances, 120 concurrent requests of about $${largest / 1e9}: ` +
        `${costs.length} served, ${refused.length} refused; overshoot ${Math.max(0, spent - limit)} nano-USD (bound: one request, ${largest})`,
    )
    expect(costs.length + refused.length).toBe(120)
    expect(refused.every((error) => error.status === 429)).toBe(true)
    expect(spent).toBeGreaterThan(limit - largest)
    expect(spent - limit).toBeLessThanOrEqual(largest)
    for (const client of clients.slice(0, 2)) {
      const error = (await client.chat.completions
        .create({ model: 'gpt-test', messages: hello, max_tokens: 20 })
        .catch((failure: unknown) => failure)) as Refusal
      expect(error).toMatchObject({ status: 429, code: 'budget_exceeded' })
      expect(error.message).toContain(
        'Team "data" has spent its daily budget of $0.3 (teams[].budget). It resets at',
      )
    }
    // GET /v1/usage: the team's budget and what is left, the same on both instances.
    const usage = (await (
      await fetch(`${instances[1]!.url}/v1/usage`, {
        headers: { authorization: `Bearer ${keys.a}` },
      })
    ).json()) as Record<string, any>
    expect(usage['team']).toMatchObject({ id: 'data', name: 'Data team' })
    expect(usage['team']['budget'][0]).toMatchObject({
      per: 'day',
      limit_usd: 0.3,
      used_usd: spent / 1e9,
      reserved_usd: 0,
    })
    // Nothing of key b in key a's answer: its own usage only, the team's shared budget.
    expect(JSON.stringify(usage)).not.toContain('"b"')
  }, 60_000)

  it('the organisation budget holds across teams', async () => {
    const prefix = await redisPrefix()
    const upstream = gatedUpstreams()
    const budget = { usd: 0.2, per: 'month' as const }
    const config = (): GatewayConfig => ({
      groups: upstream.groups,
      prices,
      organisation: { budget },
      teams: [{ id: 'one' }, { id: 'two', budget: { usd: 100, per: 'month' } }],
      keys: [
        { key: keys.a, id: 'a', team: 'one' },
        { key: keys.b, id: 'b', team: 'two' },
        { key: keys.c, id: 'c' },
      ],
      state: { redis: redisUrl, prefix },
    })
    const instances = await twoInstances(config)
    const clients = [keys.a, keys.b, keys.c].flatMap((key) =>
      instances.map((instance) => new OpenAI({ apiKey: key, baseURL: `${instance.url}/v1` })),
    )
    const { costs, refused, spent } = await drain(clients, 90)
    const limit = budget.usd * 1e9
    const largest = Math.max(...costs)
    console.log(
      `organisation budget $${budget.usd}/month, three keys (two teams, one without) over two instances, 90 concurrent requests: ` +
        `${costs.length} served, ${refused.length} refused; overshoot ${Math.max(0, spent - limit)} nano-USD (bound ${largest})`,
    )
    expect(spent - limit).toBeLessThanOrEqual(largest)
    expect(spent).toBeGreaterThan(limit - largest)
    const error = (await clients[5]!.chat.completions
      .create({ model: 'gpt-test', messages: hello, max_tokens: 20 })
      .catch((failure: unknown) => failure)) as Refusal
    expect(error).toMatchObject({ status: 429, code: 'budget_exceeded' })
    expect(error.message).toContain(
      'The organisation has spent its monthly budget of $0.2 (organisation.budget).',
    )
  }, 60_000)
})

describe('perUser limits of a shared key', () => {
  it('hold one end user while another of the same key is served, named by user, metadata.user_id or the header', async () => {
    const prefix = await redisPrefix()
    const upstream = gatedUpstreams()
    const config = (): GatewayConfig => ({
      groups: upstream.groups,
      prices,
      keys: [{ key: keys.shared, id: 'shared', perUser: { budget: { usd: 0.05, per: 'day' } } }],
      state: { redis: redisUrl, prefix },
    })
    const instances = await twoInstances(config)
    const clients = instances.map(
      (instance) => new OpenAI({ apiKey: keys.shared, baseURL: `${instance.url}/v1` }),
    )
    const { costs, refused, spent } = await drain(clients, 40, () => 'alice@example.com')
    console.log(
      `perUser budget $0.05/day, one end user of a shared key over two instances, 40 concurrent requests: ` +
        `${costs.length} served, ${refused.length} refused; overshoot ${Math.max(0, spent - 0.05e9)} nano-USD (bound ${Math.max(...costs)})`,
    )
    expect(refused.length).toBeGreaterThan(0)
    expect(spent - 0.05e9).toBeLessThanOrEqual(Math.max(...costs))
    const error = (await clients[0]!.chat.completions
      .create({ model: 'gpt-test', messages: hello, max_tokens: 20, user: 'alice@example.com' })
      .catch((failure: unknown) => failure)) as Refusal
    expect(error).toMatchObject({ status: 429, code: 'budget_exceeded' })
    expect(error.message).toContain(
      'End user "alice@example.com" of this API key has spent its daily budget of $0.05 (keys[].perUser.budget).',
    )
    // Bob, on the same key, is served: by `user`, by the header, and through Anthropic's field.
    const bob = await clients[1]!.chat.completions.create({
      model: 'gpt-test',
      messages: hello,
      max_tokens: 20,
      user: 'bob',
    })
    expect(bob.choices[0]!.message.content).toBeTruthy()
    const byHeader = new OpenAI({
      apiKey: keys.shared,
      baseURL: `${instances[0]!.url}/v1`,
      defaultHeaders: { 'x-gateway-user': 'bob' },
    })
    await expect(
      byHeader.chat.completions.create({ model: 'gpt-test', messages: hello, max_tokens: 20 }),
    ).resolves.toBeDefined()
    const anthropic = new Anthropic({ apiKey: keys.shared, baseURL: instances[1]!.url })
    const refusedAlice = await anthropic.messages
      .create({
        model: 'claude-test',
        max_tokens: 20,
        messages: hello,
        metadata: { user_id: 'alice@example.com' },
      })
      .catch((failure: unknown) => failure)
    expect(refusedAlice).toMatchObject({ status: 429 })
    expect((refusedAlice as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error' },
    })
    // Alice's figures are hers alone: asked for with her id, never Bob's.
    const usage = (await (
      await fetch(`${instances[0]!.url}/v1/usage`, {
        headers: { authorization: `Bearer ${keys.shared}`, 'x-gateway-user': 'bob' },
      })
    ).json()) as Record<string, any>
    expect(usage['end_user']).toMatchObject({ id: 'bob' })
    expect(usage['end_user']['budget'][0]['used_usd']).toBeLessThan(0.05)
    expect(JSON.stringify(usage)).not.toContain('alice')
  }, 60_000)

  it('refuses an invalid end user with a 400 naming the field, in each protocol shape', async () => {
    const upstream = gatedUpstreams()
    const served = await serveGateway(
      await createGatewayWithState({
        groups: upstream.groups,
        // Strict for a key with perUser limits: an id the meter cannot hold would escape them.
        // (A key without them serves such an id unattributed: test/relay/end-user-body.test.ts.)
        keys: [
          { key: keys.shared, id: 'shared', perUser: { limits: { requestsPerMinute: 1000 } } },
        ],
      }),
      { port: 0 },
    )
    cleanups.push(() => served.close())
    const openai = new OpenAI({ apiKey: keys.shared, baseURL: `${served.url}/v1` })
    const spaced = await openai.chat.completions
      .create({ model: 'gpt-test', messages: hello, user: 'not allowed' })
      .catch((failure: unknown) => failure)
    expect(spaced).toMatchObject({ status: 400, type: 'invalid_request_error' })
    expect((spaced as Error).message).toContain('`user` must be 1 to 256 visible ASCII characters')
    const anthropic = new Anthropic({ apiKey: keys.shared, baseURL: served.url })
    const long = await anthropic.messages
      .create({
        model: 'claude-test',
        max_tokens: 20,
        messages: hello,
        metadata: { user_id: 'x'.repeat(257) },
      })
      .catch((failure: unknown) => failure)
    expect(long).toMatchObject({ status: 400 })
    expect((long as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      error: { type: 'invalid_request_error' },
    })
    expect((long as Error).message).toContain('`metadata.user_id`')
    const header = await fetch(`${served.url}/v1beta/models/gemini-test:generateContent`, {
      method: 'POST',
      headers: {
        'x-goog-api-key': keys.shared,
        'x-gateway-user': 'é',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
    })
    expect(header.status).toBe(400)
    expect(await header.json()).toMatchObject({
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: expect.stringContaining('x-gateway-user'),
      },
    })
  })
})
