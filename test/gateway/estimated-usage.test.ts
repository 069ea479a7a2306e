import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { GatewayHandler } from '../../src/index'
import { buildGateway, gatewayUrl, keys } from '../helpers/gateway'
import {
  chatCompletion,
  chatStreamFrames,
  controlledStream,
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
} from '../helpers/upstream'

const upstream = createMockUpstream()
beforeAll(() => upstream.server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => upstream.server.resetHandlers())
afterAll(() => upstream.server.close())

const hello = [{ role: 'user' as const, content: 'Hello there, how are you today?' }]
const noUsage = chatCompletion('ok')
delete (noUsage as { usage?: unknown }).usage

/** A gateway on the msw upstream, and the bodies its clients sent (to know the input estimate). */
function setup() {
  const built = buildGateway({
    groups: [
      {
        id: 'gpt',
        protocol: 'openai',
        models: ['gpt-4o-mini'],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
    ],
  })
  const bodies: string[] = []
  const fetch =
    (gateway: GatewayHandler): typeof globalThis.fetch =>
    async (input, init) => {
      bodies.push(String(init?.body))
      return gateway(new Request(input, init))
    }
  const openai = new OpenAI({
    apiKey: keys.main,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetch(built.gateway),
    maxRetries: 0,
  })
  const claude = new Anthropic({
    apiKey: keys.main,
    baseURL: gatewayUrl,
    fetch: fetch(built.gateway),
    maxRetries: 0,
  })
  /** The gateway's estimate of the last client body: a quarter of its characters. */
  const inputEstimate = () => Math.ceil(bodies.at(-1)!.length / 4)
  return { ...built, openai, claude, inputEstimate }
}

const estimate = (inputTokens: number, outputTokens: number) => ({
  inputTokens,
  outputTokens,
  cachedInputTokens: 0,
  cacheWriteInputTokens: 0,
  cacheWrite1hInputTokens: 0,
  reasoningTokens: 0,
  totalTokens: inputTokens + outputTokens,
})

describe('usage the upstream never reported', () => {
  it('settles a JSON answer without usage at the reservation: input estimate plus the default output limit', async () => {
    const { openai, meter, events, inputEstimate } = setup()
    upstream.answer({ kind: 'json', body: noUsage })
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
    // No limit in the request: gpt-4o-mini's own maximum output, from its profile.
    const expected = estimate(inputEstimate(), 16_384)
    expect(meter.records()[0]).toMatchObject({ outcome: 'ok', estimated: true, usage: expected })
    expect(events[0]).toMatchObject({ outcome: 'ok', estimated: true, usage: expected })
    expect((await meter.summary(meter.records()[0]!.keyId)).totalTokens).toBe(expected.totalTokens)
  })

  it('settles a whole stream without usage (an upstream that ignores include_usage) at the reservation, with the client’s own limit', async () => {
    const { openai, meter, inputEstimate } = setup()
    upstream.answer({ kind: 'sse', frames: chatStreamFrames(['a', 'b']) })
    let text = ''
    for await (const chunk of await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: hello,
      max_tokens: 300,
      stream: true,
    }))
      text += chunk.choices[0]?.delta.content ?? ''
    expect(text).toBe('ab')
    expect(meter.records()[0]).toMatchObject({
      outcome: 'ok',
      stream: true,
      estimated: true,
      usage: estimate(inputEstimate(), 300),
    })
  })

  it('settles a translated stream without usage at the reservation, with the Anthropic client’s max_tokens', async () => {
    const { claude, meter, inputEstimate } = setup()
    upstream.answer({ kind: 'sse', frames: chatStreamFrames(['a', 'b']) })
    const message = await claude.messages
      .stream({ model: 'gpt-4o-mini', max_tokens: 700, messages: hello })
      .finalMessage()
    expect(message.content).toMatchObject([{ type: 'text', text: 'ab' }])
    expect(meter.records()[0]).toMatchObject({
      outcome: 'ok',
      estimated: true,
      usage: estimate(inputEstimate(), 700),
    })
  })

  it('settles a stream the client leaves before any usage with the input estimate', async () => {
    const { openai, meter, events, inputEstimate } = setup()
    const stream = controlledStream()
    upstream.answer({ kind: 'controlled', stream })
    for (const frame of chatStreamFrames(['one ', 'two ']).slice(0, 2)) stream.push(frame)
    const answer = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: hello,
      stream: true,
    })
    for await (const chunk of answer) {
      void chunk
      break
    }
    await vi.waitFor(() => expect(meter.records()).toHaveLength(1))
    expect(meter.records()[0]).toMatchObject({
      outcome: 'aborted',
      estimated: true,
      usage: estimate(inputEstimate(), 0),
    })
    expect(events[0]).toMatchObject({ outcome: 'aborted', estimated: true })
  })

  it('settles a call the client leaves before the upstream answered with the input estimate', async () => {
    const { gateway, meter } = setup()
    upstream.answer({ kind: 'hang' })
    const controller = new AbortController()
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: hello })
    const callsBefore = upstream.calls.length
    const pending = gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}` },
        body,
        signal: controller.signal,
      }),
    )
    await vi.waitFor(() => expect(upstream.calls.length).toBe(callsBefore + 1))
    controller.abort()
    expect((await pending).status).toBe(499)
    expect(meter.records()[0]).toMatchObject({
      outcome: 'aborted',
      estimated: true,
      usage: estimate(Math.ceil(body.length / 4), 0),
    })
  })

  it('records nothing for a call whose client left before it was sent upstream', async () => {
    const { gateway, meter } = setup()
    const callsBefore = upstream.calls.length
    const controller = new AbortController()
    controller.abort()
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}` },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: hello }),
        signal: controller.signal,
      }),
    )
    expect(response.status).toBe(499)
    expect(upstream.calls.length).toBe(callsBefore)
    expect(meter.records()[0]).toMatchObject({ outcome: 'aborted', estimated: false })
    expect(meter.records()[0]!.usage).toBeUndefined()
  })

  it('settles a stream that fails mid-way without usage with the input estimate, as an error', async () => {
    const { openai, meter, inputEstimate } = setup()
    upstream.answer({ kind: 'sse', frames: chatStreamFrames(['a', 'b', 'c']), failAfter: 2 })
    await expect(
      (async () => {
        for await (const chunk of await openai.chat.completions.create({
          model: 'gpt-4o-mini',
          messages: hello,
          stream: true,
        }))
          void chunk
      })(),
    ).rejects.toThrow('The upstream connection failed mid-stream.')
    expect(meter.records()[0]).toMatchObject({
      outcome: 'error',
      estimated: true,
      usage: estimate(inputEstimate(), 0),
    })
  })

  it('records no usage for a call the upstream refused before answering', async () => {
    const { openai, meter, events } = setup()
    upstream.answer({ kind: 'error', status: 500, body: { error: { message: 'boom' } } })
    await expect(
      openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello }),
    ).rejects.toMatchObject({ status: 500 })
    expect(meter.records()[0]).toMatchObject({ outcome: 'error', estimated: false })
    expect(meter.records()[0]!.usage).toBeUndefined()
    expect(events[0]!.estimated).toBeUndefined()
  })

  it('records what the upstream reported, never an estimate, when it reported usage', async () => {
    const { openai, meter } = setup()
    upstream.answer({ kind: 'json', body: chatCompletion('ok') })
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
    expect(meter.records()[0]).toMatchObject({
      estimated: false,
      usage: { inputTokens: 11, outputTokens: 7, totalTokens: 18 },
    })
  })
})
