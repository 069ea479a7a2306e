import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildGateway, fetchThrough, gatewayUrl, keys, openAIClient } from '../helpers/gateway'
import { geminiApiKey, geminiBaseUrl, geminiHandlers } from '../helpers/gemini-upstream'
import {
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
  type UpstreamBehaviour,
  type UpstreamCallRecord,
} from '../helpers/upstream'

/**
 * Passthrough streams meter what the upstream reported without parsing every chunk: they look for
 * the usage member in the text. JSON lets a member name be written with escapes (`"us\u0061ge"`),
 * which `JSON.parse` — and so the client — reads as `usage`. An odd or hostile upstream writing it
 * that way must still be metered as it reported, not left to the gateway's estimate.
 */
const openai = createMockUpstream()
const geminiCalls: UpstreamCallRecord[] = []
let geminiAnswer: UpstreamBehaviour = { kind: 'hang' }
openai.server.use(...geminiHandlers({ calls: geminiCalls, behaviour: () => geminiAnswer }))
beforeAll(() => openai.server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => openai.server.close())

const sse = (frames: readonly string[]): UpstreamBehaviour => ({
  kind: 'raw',
  body: frames.map((data) => `data: ${data}\n\n`).join(''),
  headers: { 'content-type': 'text/event-stream' },
})

function build() {
  return buildGateway({
    groups: [
      {
        id: 'gpt',
        protocol: 'openai',
        models: ['gpt-4o-mini'],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
      {
        id: 'gem',
        protocol: 'gemini',
        models: ['gemini-2.5-flash'],
        upstreams: [{ baseUrl: geminiBaseUrl, apiKey: geminiApiKey }],
      },
    ],
  })
}

const chunk = (rest: string) =>
  `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini",${rest}}`

describe('the passthrough usage tap and member names written with escapes', () => {
  it.each([
    ['plain', '"usage"'],
    ['escaped', '"us\\u0061ge"'],
    ['all escaped', '"\\u0075\\u0073\\u0061\\u0067\\u0065"'],
  ])(
    'OpenAI stream, usage member %s: metered as reported, the usage chunk kept from a client that did not ask',
    async (_, name) => {
      const { gateway, meter, events } = build()
      openai.answer(
        sse([
          chunk(
            '"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]',
          ),
          chunk('"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]'),
          chunk(`"choices":[],${name}:{"prompt_tokens":7,"completion_tokens":5,"total_tokens":12}`),
          '[DONE]',
        ]),
      )
      const stream = await openAIClient(gateway).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
      })
      const chunks: OpenAI.ChatCompletionChunk[] = []
      for await (const part of stream) chunks.push(part)
      // The client did not ask for usage: the usage-only chunk the gateway asked for is not relayed.
      expect(chunks.every((part) => part.choices.length > 0)).toBe(true)
      const record = meter.records().at(-1)!
      expect(record).toMatchObject({ outcome: 'ok', estimated: false })
      expect(record.usage).toMatchObject({ inputTokens: 7, outputTokens: 5, totalTokens: 12 })
      expect(events.at(-1)).toMatchObject({ outcome: 'ok' })
    },
  )

  it.each([
    ['plain', '"usageMetadata"'],
    ['escaped', '"usageMet\\u0061data"'],
  ])('Gemini stream, usageMetadata member %s: metered as reported', async (_, name) => {
    const { gateway, meter } = build()
    const candidate = (text: string, finish?: string) =>
      `{"candidates":[{"content":{"role":"model","parts":[{"text":"${text}"}]},"index":0${finish === undefined ? '' : `,"finishReason":"${finish}"`}}]`
    geminiAnswer = sse([
      `${candidate('Hi')},${name}:{"promptTokenCount":9,"candidatesTokenCount":1,"totalTokenCount":10}}`,
      `${candidate(' there', 'STOP')},${name}:{"promptTokenCount":9,"candidatesTokenCount":3,"totalTokenCount":12}}`,
    ])
    const response = await fetchThrough(gateway)(
      `${gatewayUrl}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
      {
        method: 'POST',
        headers: { 'x-goog-api-key': keys.main, 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
      },
    )
    expect(response.status).toBe(200)
    // Relayed as the upstream wrote it.
    expect(await response.text()).toContain(name)
    const record = meter.records().at(-1)!
    expect(record).toMatchObject({ outcome: 'ok', estimated: false })
    expect(record.usage).toMatchObject({ inputTokens: 9, outputTokens: 3, totalTokens: 12 })
  })
})
