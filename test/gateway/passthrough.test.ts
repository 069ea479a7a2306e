import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { buildGateway, keys, openAIClient, gatewayUrl } from '../helpers/gateway'
import {
  chatCompletion,
  chatStreamFrames,
  createMockUpstream,
  upstreamApiKey,
} from '../helpers/upstream'

const upstream = createMockUpstream()
beforeAll(() => upstream.server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => upstream.server.resetHandlers())
afterAll(() => upstream.server.close())

describe('chat completions passthrough to an openai group', () => {
  it('returns the upstream completion to the openai SDK', async () => {
    const { gateway } = buildGateway()
    upstream.answer({ kind: 'json', body: chatCompletion('Hi there!') })
    const completion = await openAIClient(gateway).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello' }],
    })
    expect(completion.choices[0]?.message.content).toBe('Hi there!')
    expect(completion.usage?.total_tokens).toBe(18)
  })

  it('sends the configured upstreamModel and keeps every other byte of the body', async () => {
    const { gateway } = buildGateway()
    const text =
      '{"model":"fast","messages":[{"role":"user","content":"Hi \\"there\\""}],"temperature":0.50,"x_vendor_field":{"keep":[1,2.0]}}'
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
        body: text,
      }),
    )
    expect(response.status).toBe(200)
    expect(upstream.lastCall().body).toBe(text.replace('"fast"', '"gpt-4o-mini-2024-07-18"'))
  })

  it('forwards a body untouched when the model name needs no rewrite', async () => {
    const { gateway } = buildGateway()
    const text =
      '{ "messages" : [{"role":"developer","content":[{"type":"text","text":"x"}]}], "model" : "gpt-4o-mini" }'
    await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-api-key': keys.main },
        body: text,
      }),
    )
    expect(upstream.lastCall().body).toBe(text)
  })

  it('never sends the client key upstream, only the group credentials and allow-listed headers', async () => {
    const { gateway } = buildGateway()
    await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${keys.main}`,
          'x-api-key': keys.main,
          'x-goog-api-key': keys.main,
          cookie: 'session=abc',
          'openai-organization': 'org-client',
          'x-stainless-os': 'Linux',
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
      }),
    )
    const sent = upstream.lastCall()
    expect(sent.headers.get('authorization')).toBe(`Bearer ${upstreamApiKey}`)
    expect(sent.headers.get('traceparent')).toBe(
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    )
    for (const name of [
      'x-api-key',
      'x-goog-api-key',
      'cookie',
      'openai-organization',
      'x-stainless-os',
    ]) {
      expect(sent.headers.get(name)).toBeNull()
    }
    const everything = [...sent.headers.values()].join('\n') + sent.body
    expect(everything).not.toContain(keys.main)
  })

  it('answers every response with an x-request-id header', async () => {
    const { gateway } = buildGateway()
    const ok = await gateway(
      new Request(`${gatewayUrl}/v1/models`, { headers: { authorization: `Bearer ${keys.main}` } }),
    )
    const unauthorised = await gateway(new Request(`${gatewayUrl}/v1/models`))
    expect(ok.headers.get('x-request-id')).toMatch(/^req_test_\d+$/)
    expect(unauthorised.headers.get('x-request-id')).toMatch(/^req_test_\d+$/)
  })
})

describe('chat completions streaming passthrough', () => {
  it('streams the upstream text to the openai SDK and ends at [DONE]', async () => {
    const { gateway } = buildGateway()
    upstream.answer({
      kind: 'sse',
      frames: chatStreamFrames(['Hel', 'lo', ' world'], { includeUsage: true }),
    })
    const stream = await openAIClient(gateway).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
    })
    const pieces: string[] = []
    for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta.content ?? '')
    expect(pieces.join('')).toBe('Hello world')
  })

  it('always asks the upstream for usage, and drops the usage chunk the client did not ask for', async () => {
    const { gateway } = buildGateway()
    upstream.answer({ kind: 'sse', frames: chatStreamFrames(['a', 'b'], { includeUsage: true }) })
    const stream = await openAIClient(gateway).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
    })
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(upstream.lastBody()['stream_options']).toEqual({ include_usage: true })
    expect(chunks.every((chunk) => chunk.choices.length > 0)).toBe(true)
    expect(chunks.some((chunk) => chunk.usage)).toBe(false)
  })

  it('keeps the usage chunk for a client that asked for it, with its other stream options', async () => {
    const { gateway } = buildGateway()
    upstream.answer({ kind: 'sse', frames: chatStreamFrames(['a', 'b'], { includeUsage: true }) })
    const stream = await openAIClient(gateway).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true, include_obfuscation: false },
    })
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(upstream.lastBody()['stream_options']).toEqual({
      include_usage: true,
      include_obfuscation: false,
    })
    expect(chunks.at(-1)?.choices).toEqual([])
    expect(chunks.at(-1)?.usage?.total_tokens).toBe(23)
  })

  it('sends SSE headers only after the first upstream event', async () => {
    const { gateway } = buildGateway()
    upstream.answer({ kind: 'sse', frames: chatStreamFrames(['x']), delayMs: 5 })
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}` },
        body: JSON.stringify({
          model: 'gpt-4o-mini',
          stream: true,
          messages: [{ role: 'user', content: 'x' }],
        }),
      }),
    )
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    expect(response.headers.get('cache-control')).toBe('no-cache')
    const text = await response.text()
    expect(text.startsWith('data: {')).toBe(true)
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true)
  })
})
