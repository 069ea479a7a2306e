import Anthropic from '@anthropic-ai/sdk'
import { ApiError, GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  createGateway,
  createMemoryUsageMeter,
  GatewayConfigError,
  type BudgetAlert,
  type GatewayConfig,
  type GatewayHandler,
  type RequestEvent,
} from '../../src/index'
import { formatRequestLog } from '../../src/node/cli/request-log'
import {
  anthropicApiKey,
  anthropicBaseUrl,
  anthropicHandlers,
  anthropicMessage,
} from '../helpers/anthropic-upstream'
import { fetchThrough, gatewayUrl } from '../helpers/gateway'
import {
  gatewayHandler,
  geminiApiKey,
  geminiBaseUrl,
  geminiHandlers,
  geminiResponse,
} from '../helpers/gemini-upstream'
import {
  chatCompletion,
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
  type UpstreamBehaviour,
  type UpstreamCallRecord,
} from '../helpers/upstream'

/**
 * Spend end to end, through the official SDKs with the defaults users get: prices from the
 * catalogue and the config, a long-context tier, a fallback charged at the answering model's
 * price, multipliers, unpriced models, money budgets and their 429 in every protocol, alerts, and
 * the reports (`GET /v1/usage`, `GET /v1/models`).
 */
const openai = createMockUpstream()
const anthropicCalls: UpstreamCallRecord[] = []
const geminiCalls: UpstreamCallRecord[] = []
let anthropicAnswer: UpstreamBehaviour = { kind: 'json', body: anthropicMessage([]) }
let geminiAnswer: UpstreamBehaviour = { kind: 'json', body: geminiResponse([]) }
let handler: GatewayHandler
openai.server.use(
  ...anthropicHandlers({ calls: anthropicCalls, behaviour: () => anthropicAnswer }),
  ...geminiHandlers({ calls: geminiCalls, behaviour: () => geminiAnswer }),
  gatewayHandler(gatewayUrl, () => handler),
)
beforeAll(() => openai.server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => openai.server.close())

const keys = {
  plain: 'sk-spend-plain-0123456789abcdefABCDEF',
  budget: 'sk-spend-budget-0123456789abcdefABCDE',
  margin: 'sk-spend-margin-0123456789abcdefABCDE',
} as const

/** 1,000 input and 100 output tokens, as OpenAI reports them. */
const openaiUsage = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 }

function gatewayOf(overrides: Partial<GatewayConfig> = {}) {
  const meter = createMemoryUsageMeter()
  const events: RequestEvent[] = []
  const alerts: BudgetAlert[] = []
  let ids = 0
  const gateway = createGateway({
    groups: [
      {
        id: 'gpt',
        protocol: 'openai',
        models: [
          'gpt-4o-mini',
          { name: 'local', upstreamModel: 'my-local-llama' },
          { name: 'custom', upstreamModel: 'my-finetune', price: { input: 2, output: 4 } },
          { name: 'failing', upstreamModel: 'gpt-4o', fallbacks: ['claude/sonnet'] },
        ],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
      {
        id: 'claude',
        protocol: 'anthropic',
        priceMultiplier: 1.5,
        models: [{ name: 'sonnet', upstreamModel: 'claude-sonnet-4-5-20250929' }],
        upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
      },
      {
        id: 'gem',
        protocol: 'gemini',
        models: ['gemini-2.5-flash'],
        upstreams: [{ baseUrl: geminiBaseUrl, apiKey: geminiApiKey }],
      },
    ],
    keys: [
      { key: keys.plain, id: 'plain' },
      {
        key: keys.budget,
        id: 'budget',
        budget: [
          { usd: 0.01, per: 'day', alertAt: 0.5 },
          { usd: 1, per: 'month' },
        ],
      },
      { key: keys.margin, id: 'margin', priceMultiplier: 1.2 },
    ],
    usageMeter: meter,
    generateId: () => `req_spend_${++ids}`,
    onEvent: (event) => events.push(event),
    onBudgetAlert: (alert) => alerts.push(alert),
    ...overrides,
  })
  handler = gateway
  return { gateway, meter, events, alerts }
}

/** The openai SDK as users make it (its default retries included). */
const openaiSdk = (apiKey: string) =>
  new OpenAI({ apiKey, baseURL: `${gatewayUrl}/v1`, fetch: fetchThrough(handler) })
const anthropicSdk = (apiKey: string) =>
  new Anthropic({ apiKey, baseURL: gatewayUrl, fetch: fetchThrough(handler) })
const genai = (apiKey: string) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gatewayUrl } })
const hello = [{ role: 'user' as const, content: 'Hello' }]

beforeEach(() => {
  openai.answer({ kind: 'json', body: chatCompletion('Hi', openaiUsage) })
})

describe('cost on every record', () => {
  it('prices a request at the catalogue price of its upstream model, on the record, the event and the log line', async () => {
    const { meter, events } = gatewayOf()
    await openaiSdk(keys.plain).chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
    const record = meter.records().at(-1)!
    // gpt-4o-mini: $0.15 input, $0.60 output per 1M tokens.
    expect(record.cost).toMatchObject({
      nanoUsd: 1000 * 150 + 100 * 600,
      listNanoUsd: 210_000,
      price: { model: 'gpt-4o-mini', input: 0.15, output: 0.6, multiplier: 1 },
    })
    expect(events.at(-1)!.cost).toEqual(record.cost)
    expect(formatRequestLog(events.at(-1)!)).toContain(' cost=$0.00021 ')
  })

  it("prices a model entry's own price, and applies the group's and key's multipliers", async () => {
    const { meter } = gatewayOf()
    await openaiSdk(keys.margin).chat.completions.create({ model: 'custom', messages: hello })
    expect(meter.records().at(-1)!.cost).toMatchObject({
      listNanoUsd: 1000 * 2000 + 100 * 4000,
      nanoUsd: 2_880_000,
      price: {
        model: 'my-finetune',
        input: 2,
        output: 4,
        multiplier: 1.2,
        source: 'config: models["custom"].price',
      },
    })
  })

  it('records an unpriced model as unpriced (null), never as free', async () => {
    const { meter, events } = gatewayOf()
    await openaiSdk(keys.plain).chat.completions.create({ model: 'local', messages: hello })
    expect(meter.records().at(-1)!.cost).toBeNull()
    expect(formatRequestLog(events.at(-1)!)).toContain(' cost=unpriced ')
    const summary = await meter.summary('plain')
    expect(summary).toMatchObject({ unpricedRequests: 1, costNanoUsd: 0 })
  })

  it('prices an answer without usage at the estimate it is settled with, flagged estimated', async () => {
    const { meter } = gatewayOf()
    const body = chatCompletion('Hi') as Record<string, unknown>
    delete body['usage']
    openai.answer({ kind: 'json', body })
    await openaiSdk(keys.plain).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'x'.repeat(400) }],
      max_tokens: 50,
    })
    const record = meter.records().at(-1)!
    expect(record.estimated).toBe(true)
    const usage = record.usage!
    expect(usage.outputTokens).toBe(50)
    expect(record.cost!.nanoUsd).toBe(usage.inputTokens * 150 + 50 * 600)
  })

  it('switches a request whose input passes 200K tokens to the long-context tier, every token included', async () => {
    const { meter } = gatewayOf()
    anthropicAnswer = {
      kind: 'json',
      body: anthropicMessage([{ type: 'text', text: 'Long read' }], {
        usage: {
          input_tokens: 150_000,
          cache_read_input_tokens: 40_000,
          cache_creation_input_tokens: 10_001,
          output_tokens: 2000,
        },
      }),
    }
    await anthropicSdk(keys.plain).messages.create({
      model: 'sonnet',
      max_tokens: 4096,
      messages: hello,
    })
    const record = meter.records().at(-1)!
    expect(record.usage).toMatchObject({
      inputTokens: 200_001,
      cachedInputTokens: 40_000,
      cacheWriteInputTokens: 10_001,
    })
    // Claude Sonnet 4.5 above 200K: $6 input, $0.60 read, $7.50 5-minute write, $22.50 output;
    // the claude group charges 1.5× the list price.
    const list = 150_000 * 6000 + 40_000 * 600 + 10_001 * 7500 + 2000 * 22_500
    expect(record.cost).toMatchObject({
      listNanoUsd: list,
      nanoUsd: list * 1.5,
      price: {
        model: 'claude-sonnet-4-5',
        aboveInputTokens: 200_000,
        input: 6,
        output: 22.5,
        multiplier: 1.5,
      },
    })
  })

  it("charges a fallback's answer at the fallback model's price", async () => {
    const { meter, events } = gatewayOf()
    openai.answer({
      kind: 'error',
      status: 500,
      body: { error: { message: 'down', type: 'server_error', param: null, code: null } },
    })
    anthropicAnswer = {
      kind: 'json',
      body: anthropicMessage([{ type: 'text', text: 'From Claude' }], {
        usage: { input_tokens: 1000, output_tokens: 100 },
      }),
    }
    const answer = await openaiSdk(keys.plain).chat.completions.create({
      model: 'failing',
      messages: hello,
    })
    expect(answer.choices[0]!.message.content).toBe('From Claude')
    const record = meter.records().at(-1)!
    expect(record).toMatchObject({ groupId: 'claude', upstreamModel: 'claude-sonnet-4-5-20250929' })
    // Claude Sonnet 4.5 ($3 / $15) × the claude group's 1.5, not gpt-4o's $2.50 / $10.
    expect(record.cost).toMatchObject({
      listNanoUsd: 1000 * 3000 + 100 * 15_000,
      nanoUsd: 6_750_000,
      price: { model: 'claude-sonnet-4-5', multiplier: 1.5 },
    })
    expect(events.at(-1)!.attempts).toHaveLength(2)
  })
})

describe('money budgets', () => {
  it('refuses a spent budget with 429 budget_exceeded and its reset, which the openai SDK does not retry', async () => {
    const { meter, gateway } = gatewayOf()
    let calls = 0
    handler = Object.assign(async (request: Request) => {
      calls += 1
      return gateway(request)
    }, gateway)
    // $0.0015 a call against a $0.01 day: about 7 calls, the last possibly past it.
    openai.answer({
      kind: 'json',
      body: chatCompletion('Hi', {
        prompt_tokens: 5000,
        completion_tokens: 1250,
        total_tokens: 6250,
      }),
    })
    let refused: unknown
    for (let call = 0; call < 20 && refused === undefined; call += 1) {
      try {
        await openaiSdk(keys.budget).chat.completions.create({
          model: 'gpt-4o-mini',
          messages: hello,
          max_tokens: 100,
        })
      } catch (error) {
        refused = error
      }
    }
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError)
    const error = refused as InstanceType<typeof OpenAI.RateLimitError>
    expect(error.status).toBe(429)
    expect(error.code).toBe('budget_exceeded')
    expect(error.type).toBe('insufficient_quota')
    expect(error.message).toMatch(
      /daily budget of \$0\.01 .*resets at \d{4}-\d\d-\d\dT00:00:00\.000Z/,
    )
    expect(error.headers?.get('x-should-retry')).toBe('false')
    const tomorrow = Math.ceil(Date.now() / 86_400_000) * 86_400_000
    expect(Number(error.headers?.get('retry-after'))).toBeCloseTo(
      (tomorrow - Date.now()) / 1000,
      -2,
    )
    // The SDK's default two retries were not made: one request per call.
    const admitted = meter.records().filter((record) => record.keyId === 'budget').length
    expect(calls).toBe(admitted + 1)
    const summary = await meter.summary('budget', { budgets: [{ usd: 0.01, per: 'day' }] })
    expect(summary.limits![0]!.used).toBeGreaterThanOrEqual(10_000_000)
  })

  it('answers a spent budget in each protocol quota shape', async () => {
    gatewayOf({
      keys: [{ key: keys.budget, id: 'spent', budget: { usd: 0, per: 'month' } }],
    })
    const upstreamCalls = () => [anthropicCalls.length, geminiCalls.length, openai.calls.length]
    const before = upstreamCalls()
    const anthropic = await anthropicSdk(keys.budget)
      .messages.create({ model: 'sonnet', max_tokens: 10, messages: hello })
      .catch((error: unknown) => error)
    expect(anthropic).toBeInstanceOf(Anthropic.RateLimitError)
    expect((anthropic as InstanceType<typeof Anthropic.RateLimitError>).message).toMatch(
      /monthly budget of \$0 .*resets at/,
    )
    const gemini = await genai(keys.budget)
      .models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hello' })
      .catch((error: unknown) => error)
    expect(gemini).toBeInstanceOf(ApiError)
    expect((gemini as ApiError).status).toBe(429)
    expect((gemini as ApiError).message).toContain('RESOURCE_EXHAUSTED')
    expect((gemini as ApiError).message).toContain('BUDGET_EXCEEDED')
    const responses = await openaiSdk(keys.budget)
      .responses.create({ model: 'gpt-4o-mini', input: 'Hello' })
      .catch((error: unknown) => error)
    expect(responses).toBeInstanceOf(OpenAI.RateLimitError)
    expect((responses as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('budget_exceeded')
    // Nothing reached an upstream.
    expect(upstreamCalls()).toEqual(before)
  })

  it('refuses an unpriced model to a key with a budget, unless the config allows unpriced models', async () => {
    gatewayOf()
    const before = openai.calls.length
    const refused = await openaiSdk(keys.budget)
      .chat.completions.create({ model: 'local', messages: hello })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError)
    expect((refused as Error).message).toMatch(/has no price.*unpricedModels/)
    expect(openai.calls.length).toBe(before)
    // Allowed: the request goes through, unpriced, and costs the budget nothing.
    const { meter } = gatewayOf({ unpricedModels: 'allow' })
    await openaiSdk(keys.budget).chat.completions.create({ model: 'local', messages: hello })
    expect(meter.records().at(-1)!.cost).toBeNull()
    const summary = await meter.summary('budget', { budgets: [{ usd: 0.01, per: 'day' }] })
    expect(summary.limits![0]).toMatchObject({ used: 0, reserved: 0 })
  })

  it('skips an unpriced fallback for a key with a budget', async () => {
    gatewayOf({
      groups: [
        {
          id: 'gpt',
          protocol: 'openai',
          models: [
            { name: 'failing', upstreamModel: 'gpt-4o', fallbacks: ['gpt/local'] },
            { name: 'local', upstreamModel: 'my-local-llama' },
          ],
          upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
        },
      ],
    })
    openai.answer({
      kind: 'error',
      status: 503,
      body: { error: { message: 'busy', type: 'server_error', param: null, code: null } },
    })
    const before = openai.calls.length
    const failed = await openaiSdk(keys.budget)
      .chat.completions.create({ model: 'failing', messages: hello }, { maxRetries: 0 })
      .catch((error: unknown) => error)
    expect(failed).toBeInstanceOf(OpenAI.InternalServerError)
    // Only gpt-4o was tried: the unpriced fallback would have spent an uncounted budget. With no
    // other candidate, the lone upstream was tried as `retry.attempts` (3) says.
    expect(openai.calls.slice(before).map((call) => JSON.parse(call.body).model)).toEqual([
      'gpt-4o',
      'gpt-4o',
      'gpt-4o',
    ])
  })

  it('holds the input estimate at the input price plus the output allowance at the output price', async () => {
    const reserved: number[] = []
    const memory = createMemoryUsageMeter()
    gatewayOf({
      usageMeter: {
        reserve: (request) => {
          reserved.push(request.estimate?.costNano ?? -1)
          return memory.reserve(request)
        },
        settle: (reservation, record) => memory.settle(reservation, record),
        release: (reservation) => memory.release(reservation),
        summary: (keyId, settings) => memory.summary(keyId, settings),
      },
    })
    const content = 'x'.repeat(4000)
    await openaiSdk(keys.budget).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content }],
      max_tokens: 500,
    })
    // About a thousand input tokens (the body's estimate) at $0.15 and 500 output at $0.60.
    expect(reserved[0]).toBeGreaterThanOrEqual(1000 * 150 + 500 * 600)
    expect(reserved[0]).toBeLessThan(1100 * 150 + 500 * 600)
  })

  it('raises onBudgetAlert once per period, when the spend crosses alertAt', async () => {
    const { alerts } = gatewayOf()
    openai.answer({
      kind: 'json',
      body: chatCompletion('Hi', {
        prompt_tokens: 4000,
        completion_tokens: 1000,
        total_tokens: 5000,
      }),
    })
    // $0.0012 a call: the $0.005 threshold of the $0.01 day is crossed by the fifth call.
    for (let call = 0; call < 7; call += 1) {
      await openaiSdk(keys.budget).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: hello,
        max_tokens: 10,
      })
    }
    expect(alerts).toHaveLength(1)
    expect(alerts[0]).toMatchObject({
      keyId: 'budget',
      per: 'day',
      limitUsd: 0.01,
      alertAtUsd: 0.005,
      spentUsd: 0.006,
      spentNanoUsd: 6_000_000,
      resetAt: expect.stringMatching(/T00:00:00\.000Z$/),
      requestId: expect.stringMatching(/^req_spend_/),
    })
  })
})

describe('reports', () => {
  it('GET /v1/usage: spend in all, today and this month, each budget, and the cost of each day', async () => {
    const { gateway } = gatewayOf()
    await openaiSdk(keys.budget).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: hello,
      max_tokens: 10,
    })
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/usage`, {
        headers: { authorization: `Bearer ${keys.budget}` },
      }),
    )
    const body = (await response.json()) as Record<string, any>
    expect(body['spend']).toEqual({
      currency: 'USD',
      total_usd: 0.00021,
      day_usd: 0.00021,
      month_usd: 0.00021,
      unpriced_requests: 0,
      saved_usd: 0,
    })
    expect(body['budget']).toEqual([
      {
        per: 'day',
        limit_usd: 0.01,
        used_usd: 0.00021,
        reserved_usd: 0,
        remaining_usd: 0.00979,
        reset_at: expect.stringMatching(/T00:00:00\.000Z$/),
        alert_at_usd: 0.005,
      },
      {
        per: 'month',
        limit_usd: 1,
        used_usd: 0.00021,
        reserved_usd: 0,
        remaining_usd: 0.99979,
        reset_at: expect.stringMatching(/-01T00:00:00\.000Z$/),
        alert_at_usd: null,
      },
    ])
    // Money budgets are not token limits: they stay out of `limits`.
    expect(body['limits']).toEqual({})
  })

  it("GET /v1/models: each priced model's price for the calling key, in every list shape", async () => {
    const { gateway } = gatewayOf()
    const list = await openaiSdk(keys.margin).models.list()
    const mini = list.data.find((model) => model.id === 'gpt-4o-mini') as unknown as Record<
      string,
      unknown
    >
    expect(mini['pricing']).toEqual({
      currency: 'USD',
      unit: 'per 1M tokens',
      input: 0.18,
      output: 0.72,
      cached_input: 0.09,
      cache_write: 0.18,
      cache_write_1h: 0.18,
    })
    expect(list.data.find((model) => model.id === 'local')).not.toHaveProperty('pricing')
    const claude = (await anthropicSdk(keys.plain).models.list()).data.find(
      (model) => model.id === 'sonnet',
    )
    expect((claude as unknown as Record<string, any>)['pricing']).toMatchObject({
      input: 4.5,
      output: 22.5,
      cache_write_1h: 9,
      tiers: [{ above_input_tokens: 200_000, input: 9, output: 33.75 }],
    })
    const gemini = await gateway(
      new Request(`${gatewayUrl}/v1beta/models/gemini-2.5-flash`, {
        headers: { 'x-goog-api-key': keys.plain },
      }),
    )
    expect(((await gemini.json()) as Record<string, any>)['pricing']).toMatchObject({
      input: 0.3,
      cachedInput: 0.03,
      output: 2.5,
    })
  })
})

describe('price config', () => {
  it('lays prices over the catalogue, and starts it empty with builtInPrices: false', async () => {
    const { meter } = gatewayOf({
      prices: { 'gpt-4o-mini*': { output: 1 }, 'my-local-llama': { input: 0.1, output: 0.2 } },
    })
    await openaiSdk(keys.plain).chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
    expect(meter.records().at(-1)!.cost!.nanoUsd).toBe(1000 * 150 + 100 * 1000)
    await openaiSdk(keys.plain).chat.completions.create({ model: 'local', messages: hello })
    expect(meter.records().at(-1)!.cost!.nanoUsd).toBe(1000 * 100 + 100 * 200)
    const empty = gatewayOf({ builtInPrices: false })
    await openaiSdk(keys.plain).chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
    expect(empty.meter.records().at(-1)!.cost).toBeNull()
  })

  it('refuses bad prices and budgets at creation, by path', () => {
    const bad = (overrides: Partial<GatewayConfig>) => {
      try {
        gatewayOf(overrides)
      } catch (error) {
        return (error as GatewayConfigError).issues
      }
      return []
    }
    expect(bad({ prices: { 'gpt-*': { input: 0.0000001 } } })).toEqual([
      { path: 'prices.gpt-*.input', message: expect.stringMatching(/at most 6 decimals/) },
    ])
    expect(
      bad({
        keys: [
          {
            key: keys.plain,
            budget: [
              { usd: 1, per: 'day' },
              { usd: 2, per: 'day' },
            ],
          },
        ],
      }),
    ).toEqual([{ path: 'keys[0].budget', message: expect.stringMatching(/one budget per period/) }])
    expect(
      bad({ keys: [{ key: keys.plain, budget: { usd: 1, per: 'week' as 'day' } }] })[0]!.path,
    ).toBe('keys[0].budget')
    expect(bad({ unpricedModels: 'maybe' as 'allow' })[0]!.path).toBe('unpricedModels')
    expect(bad({ keys: [{ key: keys.plain, priceMultiplier: 0 }] })[0]!.path).toBe(
      'keys[0].priceMultiplier',
    )
  })
})
