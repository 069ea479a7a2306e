import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { formatRequestLog } from '../../src/node/cli/request-log'
import { buildGateway, gatewayUrl, keys, openAIClient } from '../helpers/gateway'
import { chatCompletion, chatStreamFrames, createMockUpstream } from '../helpers/upstream'

const upstream = createMockUpstream()
beforeAll(() => upstream.server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => {
  upstream.server.resetHandlers()
  vi.restoreAllMocks()
})
afterAll(() => upstream.server.close())

describe('request events and logs', () => {
  it('emits one event per request with the masked key and never a full key, on every path', async () => {
    const output: string[] = []
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, method).mockImplementation(
        (...args: unknown[]) => void output.push(args.map(String).join(' ')),
      )
    }
    const { gateway, events } = buildGateway()
    const client = openAIClient(gateway)
    upstream.answer({ kind: 'json', body: chatCompletion('ok') })
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    })
    upstream.answer({ kind: 'sse', frames: chatStreamFrames(['a']), failAfter: 2 })
    await (async () => {
      for await (const chunk of await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      }))
        void chunk
    })().catch(() => undefined)
    upstream.answer({ kind: 'error', status: 500, body: { error: { message: 'boom' } } })
    await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch(() => undefined)
    await openAIClient(gateway, keys.disabled)
      .models.list()
      .catch(() => undefined)
    await openAIClient(gateway, 'sk-unknown-key-0123456789abcdefXYZW')
      .models.list()
      .catch(() => undefined)
    await gateway(
      new Request(`${gatewayUrl}/v1/usage`, { headers: { 'x-goog-api-key': keys.main } }),
    )
    // A handler failure inside the gateway logs through console.error.
    const broken = buildGateway({
      usageMeter: {
        reserve: () => {
          throw new Error('meter down')
        },
        settle: () => undefined,
        release: () => undefined,
        summary: () => {
          throw new Error('x')
        },
      },
      onEvent: (event) => output.push(JSON.stringify(event)),
    })
    await openAIClient(broken.gateway)
      .chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch(() => undefined)

    output.push(...events.map((event) => JSON.stringify(event)), ...events.map(formatRequestLog))
    expect(events.map((event) => event.status)).toEqual([200, 200, 500, 401, 401, 200])
    expect(events[0]).toMatchObject({
      key: 'sk-…CDEF',
      route: 'chat.completions',
      group: 'gpt',
      model: 'gpt-4o-mini',
      outcome: 'ok',
      usage: { totalTokens: 18 },
    })
    expect(events[1]).toMatchObject({ stream: true, outcome: 'error' })
    const all = output.join('\n')
    expect(all).toContain('sk-…CDEF')
    for (const key of [...Object.values(keys), 'sk-unknown-key-0123456789abcdefXYZW'])
      expect(all).not.toContain(key)
  })

  it('emits the event of a stream once, when the stream ends', async () => {
    const { gateway, events } = buildGateway()
    upstream.answer({ kind: 'sse', frames: chatStreamFrames(['a', 'b'], { includeUsage: true }) })
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
    expect(events).toHaveLength(0)
    await response.text()
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      status: 200,
      outcome: 'ok',
      usage: { inputTokens: 21, outputTokens: 2 },
    })
  })
})

describe('the request log line', () => {
  it('names the fields a translated request had changed for its model', () => {
    const line = formatRequestLog({
      requestId: 'req_1',
      method: 'POST',
      path: '/v1/messages',
      route: 'messages',
      key: 'sk-…abcd',
      model: 'claude-sonnet-4-5',
      status: 200,
      outcome: 'ok',
      startedAt: 0,
      durationMs: 12,
      adjustments: [
        {
          field: 'max_completion_tokens',
          change: 'clamped',
          from: 200_000,
          to: 128_000,
          reason: 'r',
        },
        { field: 'temperature', change: 'dropped', from: 0.5, reason: 'r' },
        { field: 'temperature', change: 'dropped', from: 0.5, reason: 'r' },
      ],
    })
    expect(line).toContain(' adjusted=max_completion_tokens,temperature ok 12ms')
  })
})
