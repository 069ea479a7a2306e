import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildGateway, gatewayUrl, keys, openAIClient } from '../helpers/gateway'
import {
  chatCompletion,
  chatStreamFrames,
  controlledStream,
  createMockUpstream,
} from '../helpers/upstream'

const upstream = createMockUpstream()
beforeAll(() => upstream.server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => upstream.server.resetHandlers())
afterAll(() => upstream.server.close())

const hello = [{ role: 'user' as const, content: 'Hello' }]

async function usageOf(gateway: (request: Request) => Promise<Response>, key: string) {
  const response = await gateway(
    new Request(`${gatewayUrl}/v1/usage`, { headers: { authorization: `Bearer ${key}` } }),
  )
  return (await response.json()) as Record<string, any>
}

describe('usage metering', () => {
  it('totals exactly the tokens the upstream reported over N requests, streams included', async () => {
    const { gateway, meter } = buildGateway()
    const client = openAIClient(gateway)
    const expected = { input: 0, output: 0, cached: 0 }
    for (let round = 1; round <= 3; round += 1) {
      const usage = {
        prompt_tokens: 100 * round,
        completion_tokens: 10 * round,
        total_tokens: 110 * round,
      }
      upstream.answer({ kind: 'json', body: chatCompletion('ok', usage) })
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
      expected.input += usage.prompt_tokens
      expected.output += usage.completion_tokens

      const pieces = Array.from({ length: round }, (_, index) => `p${index}`)
      upstream.answer({
        kind: 'sse',
        frames: chatStreamFrames(pieces, { includeUsage: true, cachedTokens: 5 }),
      })
      const stream = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: hello,
        stream: true,
      })
      for await (const chunk of stream) void chunk
      expected.input += 21
      expected.output += pieces.length
      expected.cached += 5
    }
    const records = meter.records()
    expect(records).toHaveLength(6)
    expect(records.every((record) => record.outcome === 'ok')).toBe(true)
    const usage = await usageOf(gateway, keys.main)
    expect(usage['usage']).toEqual({
      requests: 6,
      input_tokens: expected.input,
      output_tokens: expected.output,
      cached_input_tokens: expected.cached,
      total_tokens: expected.input + expected.output,
      cache_hits: 0,
    })
  })

  it('records the key, group, call name, upstream model, outcome and duration of each request', async () => {
    const { gateway, meter } = buildGateway()
    upstream.answer({ kind: 'json', body: chatCompletion('ok') })
    await openAIClient(gateway).chat.completions.create({ model: 'gpt/fast', messages: hello })
    expect(meter.records()[0]).toMatchObject({
      requestId: 'req_test_1',
      keyId: expect.stringMatching(/^key_[0-9a-f]{12}$/),
      groupId: 'gpt',
      providerId: 'gpt#0',
      model: 'gpt/fast',
      upstreamModel: 'gpt-4o-mini-2024-07-18',
      route: 'chat.completions',
      stream: false,
      usage: {
        inputTokens: 11,
        outputTokens: 7,
        cachedInputTokens: 0,
        cacheWriteInputTokens: 0,
        cacheWrite1hInputTokens: 0,
        reasoningTokens: 0,
        totalTokens: 18,
      },
      outcome: 'ok',
      status: 200,
      durationMs: expect.any(Number),
    })
  })

  it('records failed upstream calls with outcome error', async () => {
    const { gateway, meter } = buildGateway()
    upstream.answer({ kind: 'error', status: 500, body: { error: { message: 'boom' } } })
    await expect(
      openAIClient(gateway).chat.completions.create({ model: 'gpt-4o-mini', messages: hello }),
    ).rejects.toThrow()
    expect(meter.records()[0]).toMatchObject({ outcome: 'error', status: 500, usage: undefined })
  })
})

describe('GET /v1/usage', () => {
  it("reports only the calling key's usage and remaining quota, with CC Switch fields", async () => {
    const { gateway } = buildGateway()
    upstream.answer({
      kind: 'json',
      body: chatCompletion('ok', { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 }),
    })
    await openAIClient(gateway, keys.limited).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: hello,
    })
    await openAIClient(gateway, keys.main).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: hello,
    })
    const usage = await usageOf(gateway, keys.limited)
    expect(usage).toMatchObject({
      object: 'usage',
      key: { name: 'limited', masked: 'sk-…ABCD' },
      usage: { requests: 1, total_tokens: 20 },
      quota: { unit: 'tokens', limit: 30, used: 20, remaining: 10 },
      isValid: true,
      planName: 'limited',
      remaining: 10,
      unit: 'tokens',
    })
    expect(JSON.stringify(usage)).not.toContain(keys.main)
    expect((await usageOf(gateway, keys.main))['remaining']).toBe(-1)
  })

  it('adds `daily` only with a ledger that keeps days, and `null` when it does not answer', async () => {
    expect(await usageOf(buildGateway().gateway, keys.main)).not.toHaveProperty('daily')
    const asked: [string, number][] = []
    const days = {
      record: () => undefined,
      dailyUsage: async (keyId: string, count: number) => {
        asked.push([keyId, count])
        return [
          {
            date: '2026-11-22',
            requests: 3,
            inputTokens: 30,
            outputTokens: 12,
            cachedInputTokens: 4,
            cacheWriteInputTokens: 0,
            cacheWrite1hInputTokens: 0,
            reasoningTokens: 0,
            totalTokens: 42,
          },
        ]
      },
    }
    const withDays = await usageOf(buildGateway({ usageLedger: days }).gateway, keys.main)
    expect(withDays['daily']).toEqual([
      {
        date: '2026-11-22',
        requests: 3,
        input_tokens: 30,
        output_tokens: 12,
        cached_input_tokens: 4,
        total_tokens: 42,
        // A ledger that predates prices says nothing of cost: unknown, never 0.
        cost_usd: null,
        unpriced_requests: null,
        cache_hits: null,
        saved_usd: null,
      },
    ])
    // Thirty days, or back to the 1st on the 31st (this month's spend is summed from them).
    expect(asked).toEqual([[expect.stringMatching(/^key_/), Math.max(30, new Date().getUTCDate())]])
    const failing = { record: () => undefined, dailyUsage: () => Promise.reject(new Error('down')) }
    const down = await usageOf(buildGateway({ usageLedger: failing }).gateway, keys.main)
    expect(down).toMatchObject({ object: 'usage', daily: null })
  })

  it('answers 401 without a valid key', async () => {
    const { gateway } = buildGateway()
    const response = await gateway(new Request(`${gatewayUrl}/v1/usage`))
    expect(response.status).toBe(401)
  })
})

describe('quota', () => {
  it('answers 429 insufficient_quota once the quota is used up, without calling the upstream', async () => {
    const { gateway } = buildGateway()
    const client = openAIClient(gateway, keys.limited)
    upstream.answer({
      kind: 'json',
      body: chatCompletion('ok', { prompt_tokens: 20, completion_tokens: 15, total_tokens: 35 }),
    })
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
    const callsBefore = upstream.calls.length
    const error = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: hello })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({
      status: 429,
      code: 'insufficient_quota',
      type: 'insufficient_quota',
    })
    expect(upstream.calls.length).toBe(callsBefore)
    expect((await usageOf(gateway, keys.limited))['quota']).toMatchObject({
      used: 35,
      remaining: 0,
    })
  })

  it('holds in-flight reservations so concurrent requests cannot all spend the same remainder', async () => {
    const { gateway } = buildGateway()
    const stream = controlledStream()
    upstream.answer({ kind: 'controlled', stream })
    // A long prompt makes the first request's reservation exceed the 30-token quota on its own.
    const long = [{ role: 'user' as const, content: 'x'.repeat(200) }]
    const callsBefore = upstream.calls.length
    const first = openAIClient(gateway, keys.limited).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: long,
      stream: true,
    })
    await vi.waitFor(() => expect(upstream.calls.length).toBe(callsBefore + 1))
    const second = await openAIClient(gateway, keys.limited)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
      .catch((caught: unknown) => caught)
    expect(second).toMatchObject({ status: 429 })
    for (const frame of chatStreamFrames(['done'], { includeUsage: true })) stream.push(frame)
    stream.close()
    for await (const chunk of await first) void chunk
  })
})

describe('client disconnect', () => {
  it('aborts the upstream when the client cancels the stream, and records the usage seen so far as aborted', async () => {
    const { gateway, meter, events } = buildGateway()
    const stream = controlledStream()
    upstream.answer({ kind: 'controlled', stream })
    const frames = chatStreamFrames(['one ', 'two ', 'three'])
    stream.push(frames[0]!)
    stream.push(frames[1]!)
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}` },
        body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: hello }),
      }),
    )
    const reader = response.body!.getReader()
    const firstBytes = new TextDecoder().decode((await reader.read()).value)
    expect(firstBytes).toContain('"role":"assistant"')
    await reader.cancel()
    expect(upstream.lastCall().signal.aborted).toBe(true)
    expect(meter.records()).toHaveLength(1)
    expect(meter.records()[0]).toMatchObject({ outcome: 'aborted', stream: true })
    expect(events.at(-1)).toMatchObject({ outcome: 'aborted', status: 200 })
  })

  it('keeps upstream usage that arrived before the client left', async () => {
    const { gateway, meter } = buildGateway()
    const stream = controlledStream()
    upstream.answer({ kind: 'controlled', stream })
    // Some OpenAI-compatible servers report running usage on content chunks.
    stream.push(
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'partial' }, finish_reason: null }], usage: { prompt_tokens: 40, completion_tokens: 3, total_tokens: 43 } })}\n\n`,
    )
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}` },
        body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: hello }),
      }),
    )
    const reader = response.body!.getReader()
    await reader.read()
    await reader.cancel()
    expect(meter.records()[0]).toMatchObject({
      outcome: 'aborted',
      usage: { inputTokens: 40, outputTokens: 3, totalTokens: 43 },
    })
  })

  it('aborts the upstream when the request signal aborts before the answer', async () => {
    const { gateway, meter } = buildGateway()
    upstream.answer({ kind: 'hang' })
    const callsBefore = upstream.calls.length
    const controller = new AbortController()
    const pending = gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}` },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: hello }),
        signal: controller.signal,
      }),
    )
    await vi.waitFor(() => expect(upstream.calls.length).toBe(callsBefore + 1))
    controller.abort()
    const response = await pending
    expect(response.status).toBe(499)
    expect(upstream.lastCall().signal.aborted).toBe(true)
    expect(meter.records()[0]).toMatchObject({ outcome: 'aborted' })
  })
})

describe('memory usage meter', () => {
  it('keeps the most recent records, oldest first, once its ring is full', async () => {
    const { createMemoryUsageMeter } = await import('../../src/index')
    const meter = createMemoryUsageMeter({ maxRecords: 3 })
    for (let index = 1; index <= 5; index += 1) {
      const reserved = await meter.reserve({
        requestId: `r${index}`,
        keyId: 'k',
        quotaTokens: undefined,
        estimatedTokens: 1,
      })
      if (!reserved.granted) throw new Error('refused')
      await meter.settle(reserved.reservation, {
        requestId: `r${index}`,
        keyId: 'k',
        groupId: 'g',
        providerId: 'p',
        model: 'm',
        upstreamModel: 'm',
        route: 'chat.completions',
        stream: false,
        usage: {
          inputTokens: 1,
          outputTokens: 1,
          cachedInputTokens: 0,
          cacheWriteInputTokens: 0,
          cacheWrite1hInputTokens: 0,
          reasoningTokens: 0,
          totalTokens: 2,
        },
        outcome: 'ok',
        status: 200,
        startedAt: 0,
        durationMs: 1,
      })
    }
    expect(meter.records().map((record) => record.requestId)).toEqual(['r3', 'r4', 'r5'])
    expect(meter.summary('k')).toMatchObject({ requests: 5, totalTokens: 10, reservedTokens: 0 })
  })
})
