import Anthropic from '@anthropic-ai/sdk'
import { ApiError, GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { limitedKeys, startLimitedGateways, type MeterKind } from '../helpers/limited-gateway'

type Limited = Awaited<ReturnType<typeof startLimitedGateways>>
let current: Limited | undefined
afterEach(async () => {
  const storeLog = current?.storeLog() ?? []
  await current?.close()
  current = undefined
  // Counts are exact only while Redis answers: a fallback to the local share would skew them.
  expect(storeLog).toEqual([])
})
async function start(kind: MeterKind): Promise<Limited> {
  current = await startLimitedGateways(kind)
  return current
}

const hello = [{ role: 'user' as const, content: 'Hello' }]
/** How long to wait for work that finishes off the request path (generous: CI machines are shared). */
const eventually = { timeout: 10_000, interval: 20 }
const openai = (url: string, apiKey: string, maxRetries = 0) =>
  new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries })
const anthropic = (url: string, apiKey: string) =>
  new Anthropic({ apiKey, baseURL: url, maxRetries: 0 })

/** Sends `count` chat completions at once, alternating between the two instances. */
function burst(
  limited: Limited,
  apiKey: string,
  count: number,
  body: Record<string, unknown> = {},
) {
  return Promise.allSettled(
    Array.from({ length: count }, (_, index) =>
      openai(limited.urls[index % 2]!, apiKey).chat.completions.create({
        model: 'gpt-test',
        messages: hello,
        ...body,
      }),
    ),
  )
}

async function usageOf(url: string, apiKey: string) {
  const response = await fetch(`${url}/v1/usage`, {
    headers: { authorization: `Bearer ${apiKey}` },
  })
  return (await response.json()) as Record<string, any>
}

describe.each<MeterKind>(['memory', 'redis'])('limits through the SDKs, %s meter', (kind) => {
  const across = kind === 'redis' ? ' across two instances' : ''

  it(`admits exactly requestsPerMinute of 20 concurrent requests${across}`, async () => {
    const limited = await start(kind)
    const results = await burst(limited, limitedKeys.rpm, 20)
    const admitted = results.filter((result) => result.status === 'fulfilled')
    // 5 a minute: one more for every 12 s the burst took to arrive (the window refills).
    const refilled = Math.floor(limited.reserveSpanMs() / 12_000)
    expect(admitted.length).toBeGreaterThanOrEqual(5)
    expect(admitted.length).toBeLessThanOrEqual(5 + refilled)
    for (const result of results) {
      if (result.status === 'fulfilled') continue
      expect(result.reason).toBeInstanceOf(OpenAI.RateLimitError)
      expect(result.reason).toMatchObject({ status: 429, code: 'rate_limit_exceeded' })
      const headers = (result.reason as InstanceType<typeof OpenAI.RateLimitError>).headers
      expect(Number(headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(Number(headers.get('retry-after-ms'))).toBeGreaterThan(0)
    }
    expect(limited.upstream.calls()).toBe(admitted.length)
  })

  it(`admits exactly outputTokensPerMinute (max_tokens reserved) of 30 concurrent requests${across}`, async () => {
    const limited = await start(kind)
    // All in flight at once: a settled request would give back the output it did not use.
    limited.upstream.shut()
    const pending = burst(limited, limitedKeys.otpm, 30, { max_tokens: 100 })
    await vi.waitFor(() => expect(limited.reserves()).toHaveLength(30), eventually)
    await vi.waitFor(() => expect(limited.upstream.calls()).toBeGreaterThanOrEqual(10), eventually)
    limited.upstream.open()
    const results = await pending
    // 1,000 output tokens a minute at 100 each: one more for every 6 s the burst took to arrive.
    const refilled = Math.floor(limited.reserveSpanMs() / 6_000)
    const admitted = results.filter((result) => result.status === 'fulfilled').length
    expect(admitted).toBeGreaterThanOrEqual(10)
    expect(admitted).toBeLessThanOrEqual(10 + refilled)
    const refused = results.find((result) => result.status === 'rejected')
    expect((refused as PromiseRejectedResult).reason.message).toContain('outputTokensPerMinute')
  })

  it(`admits exactly \`concurrency\` requests in flight${across}, and more once they finish`, async () => {
    const limited = await start(kind)
    limited.upstream.shut()
    const pending = burst(limited, limitedKeys.concurrency, 10)
    await vi.waitFor(() => expect(limited.reserves()).toHaveLength(10), eventually)
    await vi.waitFor(() => expect(limited.upstream.calls()).toBe(3), eventually)
    limited.upstream.open()
    const results = await pending
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3)
    expect(
      (results.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason,
    ).toMatchObject({
      status: 429,
      code: 'rate_limit_exceeded',
    })
    const after = await burst(limited, limitedKeys.concurrency, 3)
    expect(after.every((result) => result.status === 'fulfilled')).toBe(true)
  })

  it(`holds a daily budget exactly under 30 concurrent requests${across}, then counts what was used`, async () => {
    const limited = await start(kind)
    limited.upstream.shut()
    const pending = burst(limited, limitedKeys.day, 30, { max_tokens: 100 })
    await vi.waitFor(() => expect(limited.reserves()).toHaveLength(30), eventually)
    const estimate = limited.reserves()[0]!.estimatedTokens
    expect(limited.reserves().every((request) => request.estimatedTokens === estimate)).toBe(true)
    // Each holds its whole estimate; the rest is too little for another while they are in flight.
    const expected = Math.floor(1000 / estimate)
    await vi.waitFor(() => expect(limited.upstream.calls()).toBe(expected), eventually)
    const held = (await usageOf(limited.urls[1], limitedKeys.day))['limits']['tokensPerDay']
    expect(held).toMatchObject({
      limit: 1000,
      used: 0,
      reserved: expected * estimate,
      remaining: 1000 - expected * estimate,
    })
    limited.upstream.open()
    const results = await pending
    const admitted = results.flatMap((result) =>
      result.status === 'fulfilled' ? [result.value] : [],
    )
    expect(admitted).toHaveLength(expected)
    // Not spent, held: a retry after a second may succeed, which the SDKs do on their own.
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult
    expect(refused.reason).toBeInstanceOf(OpenAI.RateLimitError)
    expect(refused.reason).toMatchObject({ status: 429, code: 'rate_limit_exceeded' })
    expect(refused.reason.message).toContain('held by its requests in flight')
    expect(refused.reason.headers.get('retry-after')).toBe('1')
    const used = admitted.reduce((sum, answer) => sum + answer.usage!.total_tokens, 0)
    // Settles finish off the request path, on either instance's Redis connection.
    await vi.waitFor(async () => {
      const usage = await usageOf(limited.urls[0], limitedKeys.day)
      expect(usage['limits']['tokensPerDay']).toMatchObject({ used, reserved: 0 })
    }, eventually)
    const after = await usageOf(limited.urls[0], limitedKeys.day)
    expect(after['limits']['tokensPerDay']).toMatchObject({
      used,
      reserved: 0,
      remaining: 1000 - used,
    })
    expect(after['usage']).toMatchObject({ requests: expected, total_tokens: used })
    expect(after['remaining']).toBe(1000 - used)
  })

  it('refuses a spent budget with insufficient_quota that the openai SDK does not retry', async () => {
    const limited = await start(kind)
    const client = openai(limited.urls[0], limitedKeys.quota, 2)
    await client.chat.completions.create({ model: 'gpt-test', messages: hello })
    const before = limited.reserves().length
    const error = await client.chat.completions
      .create({ model: 'gpt-test', messages: hello })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({
      status: 429,
      code: 'insufficient_quota',
      type: 'insufficient_quota',
    })
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get('x-should-retry')).toBe(
      'false',
    )
    // maxRetries: 2, yet one request: `x-should-retry: false` stopped the SDK.
    expect(limited.reserves().length - before).toBe(1)
  })

  it('tells when a held budget may admit (in a second) and a spent one comes back (at UTC midnight)', async () => {
    const limited = await start(kind)
    // A prompt of about 1,100 tokens on a 1,000-token day: admitted alone, holding the whole day.
    limited.upstream.shut()
    const long = [{ role: 'user' as const, content: 'x'.repeat(4400) }]
    const first = openai(limited.urls[0], limitedKeys.day).chat.completions.create({
      model: 'gpt-test',
      messages: long,
    })
    await vi.waitFor(() => expect(limited.upstream.calls()).toBe(1), eventually)
    const ask = () =>
      openai(limited.urls[1], limitedKeys.day)
        .chat.completions.create({ model: 'gpt-test', messages: hello })
        .catch((caught: unknown) => caught) as Promise<InstanceType<typeof OpenAI.APIError>>
    const held = await ask()
    expect(held).toMatchObject({ status: 429, code: 'rate_limit_exceeded' })
    expect(held.message).toContain('tokensPerDay budget (limit 1000) is held by its requests')
    expect(held.headers?.get('retry-after')).toBe('1')
    expect(held.headers?.get('x-should-retry')).toBeNull()
    limited.upstream.open()
    const answer = await first
    expect(answer.usage!.total_tokens).toBeGreaterThan(1000)
    // Settles finish off the request path: wait until the day is seen spent.
    await vi.waitFor(async () => {
      const day = (await usageOf(limited.urls[1], limitedKeys.day))['limits']['tokensPerDay']
      expect(day).toMatchObject({ used: answer.usage!.total_tokens, reserved: 0 })
    }, eventually)
    const spent = await ask()
    const untilMidnight = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000 - Date.now()
    expect(spent).toMatchObject({ status: 429, code: 'insufficient_quota' })
    expect(spent.message).toContain('daily token budget (tokensPerDay: 1000)')
    expect(spent.headers?.get('x-should-retry')).toBe('false')
    expect(Math.abs(Number(spent.headers?.get('retry-after')) - untilMidnight / 1000)).toBeLessThan(
      5,
    )
  })

  it('sends the rate-limit headers OpenAI clients read', async () => {
    const limited = await start(kind)
    const { response } = await openai(limited.urls[0], limitedKeys.mixed)
      .chat.completions.create({ model: 'gpt-test', messages: hello, max_tokens: 50 })
      .withResponse()
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('100')
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('99')
    expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(
      /^(\d+ms|0\.\d+s|[1-9][\d.]*s)$/,
    )
    // The tokens family is the tighter of the input and output windows: output, 50 of 20 000 held.
    expect(response.headers.get('x-ratelimit-limit-tokens')).toBe('20000')
    expect(Number(response.headers.get('x-ratelimit-remaining-tokens'))).toBe(19_950)
    expect(response.headers.get('x-ratelimit-reset-tokens')).toBe('150ms')
    const stream = await openai(limited.urls[1], limitedKeys.mixed)
      .chat.completions.create({ model: 'gpt-test', messages: hello, stream: true })
      .withResponse()
    expect(stream.response.headers.get('x-ratelimit-remaining-requests')).toBe('98')
    for await (const chunk of stream.data) void chunk
  })

  it('sends anthropic-ratelimit-* headers on messages, and a RateLimitError the Anthropic SDK knows', async () => {
    const limited = await start(kind)
    const { response } = await anthropic(limited.urls[0], limitedKeys.mixed)
      .messages.create({ model: 'claude-test', max_tokens: 64, messages: hello })
      .withResponse()
    expect(response.headers.get('anthropic-ratelimit-requests-limit')).toBe('100')
    expect(response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('99')
    expect(response.headers.get('anthropic-ratelimit-requests-reset')).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    )
    expect(response.headers.get('anthropic-ratelimit-input-tokens-limit')).toBe('50000')
    expect(response.headers.get('anthropic-ratelimit-output-tokens-limit')).toBe('20000')
    expect(response.headers.get('anthropic-ratelimit-output-tokens-remaining')).toBe('19936')
    expect(response.headers.get('anthropic-ratelimit-tokens-limit')).toBe('20000')
    expect(response.headers.get('x-ratelimit-limit-requests')).toBeNull()

    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () =>
        anthropic(limited.urls[1], limitedKeys.rpm).messages.create({
          model: 'claude-test',
          max_tokens: 16,
          messages: hello,
        }),
      ),
    )
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult
    expect(refused.reason).toBeInstanceOf(Anthropic.RateLimitError)
    expect(refused.reason.error).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error' },
    })
    expect(Number(refused.reason.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
  })

  it('answers Gemini clients 429 RESOURCE_EXHAUSTED, with x-ratelimit-* headers on success', async () => {
    const limited = await start(kind)
    const response = await fetch(`${limited.urls[0]}/v1beta/models/gemini-test:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': limitedKeys.mixed, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('100')
    const genai = new GoogleGenAI({
      apiKey: limitedKeys.rpm,
      httpOptions: { baseUrl: limited.urls[1] },
    })
    const results = await Promise.allSettled(
      Array.from({ length: 7 }, () =>
        genai.models.generateContent({ model: 'gemini-test', contents: 'Hi' }),
      ),
    )
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(5)
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult
    expect(refused.reason).toBeInstanceOf(ApiError)
    expect(refused.reason).toMatchObject({ status: 429 })
    expect(refused.reason.message).toContain('RESOURCE_EXHAUSTED')
  })

  it('limits Responses API clients the same way, in the words Codex reads its wait from', async () => {
    const limited = await start(kind)
    const client = openai(limited.urls[0], limitedKeys.rpm)
    const { response } = await client.responses
      .create({ model: 'gpt-test', input: 'Hello' })
      .withResponse()
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('5')
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('4')
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => client.responses.create({ model: 'gpt-test', input: 'Hi' })),
    )
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(4)
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult
    expect(refused.reason).toBeInstanceOf(OpenAI.RateLimitError)
    expect(refused.reason).toMatchObject({ status: 429, code: 'rate_limit_exceeded' })
    expect(refused.reason.message).toMatch(/Please try again in \d+s\./)
  })

  it('reports every limit with what is left and when it resets in GET /v1/usage', async () => {
    const limited = await start(kind)
    await openai(limited.urls[0], limitedKeys.mixed).chat.completions.create({
      model: 'gpt-test',
      messages: hello,
      max_tokens: 10,
    })
    await vi.waitFor(async () => {
      expect((await usageOf(limited.urls[1], limitedKeys.mixed))['usage']['requests']).toBe(1)
    }, eventually)
    const usage = await usageOf(limited.urls[1], limitedKeys.mixed)
    const total = usage['usage']['total_tokens'] as number
    expect(total).toBeGreaterThan(0)
    expect(usage).toMatchObject({
      isValid: true,
      planName: 'mixed',
      unit: 'tokens',
      remaining: 100_000 - total,
      quota: { limit: null, used: total, remaining: null },
      limits: {
        requestsPerMinute: { limit: 100, remaining: 99 },
        inputTokensPerMinute: { limit: 50_000 },
        outputTokensPerMinute: { limit: 20_000 },
        concurrency: { limit: 10, remaining: 10, reset_at: null },
        tokensPerDay: { limit: 100_000, used: total, reserved: 0, remaining: 100_000 - total },
        tokensPerMonth: { limit: 1_000_000, used: total, remaining: 1_000_000 - total },
      },
    })
    const resetDay = Date.parse(usage['limits']['tokensPerDay']['reset_at'])
    expect(resetDay % 86_400_000).toBeLessThan(5000)
    expect(Date.parse(usage['limits']['requestsPerMinute']['reset_at'])).toBeGreaterThan(Date.now())
  })
})
