import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import type { StreamEvent } from '../../../src/canonical/types'
import { GatewayError } from '../../../src/errors'
import {
  createOpenAIStreamEncoder,
  type OpenAIStreamEncoderOptions,
} from '../../../src/protocols/openai/stream-encode'
import { streamOfChunks } from '../../helpers/streams'
import { decodeText, openAIFixtures, readFixture } from './stream-helpers'

const options: OpenAIStreamEncoderOptions = {
  id: 'chatcmpl-gw1',
  model: 'client-model',
  created: 1763000999,
  includeUsage: true,
}

function encode(
  events: readonly StreamEvent[],
  overrides: Partial<OpenAIStreamEncoderOptions> = {},
) {
  const encoder = createOpenAIStreamEncoder({ ...options, ...overrides })
  return [...events.flatMap((event) => encoder.push(event)), ...encoder.end()]
}

/** The JSON payloads of the data frames, without [DONE]. */
function payloads(frames: readonly string[]): Array<Record<string, any>> {
  return frames
    .filter((frame) => frame.startsWith('data: {'))
    .map((frame) => JSON.parse(frame.slice('data: '.length)))
}

/** The SDK's `ChatCompletionStream` reading the frames, one network chunk per frame. */
function sdkStream(frames: readonly string[]) {
  const encoder = new TextEncoder()
  const response = new Response(streamOfChunks(frames.map((frame) => encoder.encode(frame))), {
    headers: { 'content-type': 'text/event-stream' },
  })
  const client = new OpenAI({
    apiKey: 'x',
    baseURL: 'http://gateway.test/v1',
    maxRetries: 0,
    fetch: async () => response,
  })
  return client.chat.completions.stream({
    model: 'client-model',
    messages: [{ role: 'user', content: 'hi' }],
    stream_options: { include_usage: true },
  })
}

function usageOf(prompt: number, completion: number, cached = 0, reasoning = 0) {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
    completion_tokens_details: { reasoning_tokens: reasoning },
  }
}

type Expected = {
  content: string | null
  toolCalls?: Array<{ id: string; name: string; arguments: string }>
  finishReason: string
  usage: ReturnType<typeof usageOf>
}

const text = 'Grüße, 世界 👋🏽 — ok'
const expectations: Record<(typeof openAIFixtures)[number], Expected> = {
  'text-stream-usage.sse': { content: text, finishReason: 'stop', usage: usageOf(19, 6) },
  'text-stream-usage-crlf.sse': { content: text, finishReason: 'stop', usage: usageOf(19, 6) },
  'tool-calls.sse': {
    content: null,
    toolCalls: [
      { id: 'call_Wq1aTgkXvVJ8bN3c', name: 'get_weather', arguments: '{"city":"München"}' },
      { id: 'call_3nB9hXcZr2LpQ7dY', name: 'get_time', arguments: '{"timezone":"Europe/Berlin"}' },
    ],
    finishReason: 'tool_calls',
    usage: usageOf(84, 47),
  },
  'no-arg-tool.sse': {
    content: null,
    toolCalls: [
      { id: 'call_Nf0ArgTime1xYz', name: 'get_current_time', arguments: '{}' },
      { id: 'call_Nf0ArgDate2aBc', name: 'get_today', arguments: '{}' },
    ],
    finishReason: 'tool_calls',
    usage: usageOf(0, 0),
  },
  'tool-call-no-index.sse': {
    content: 'Checking both cities.',
    toolCalls: [
      { id: 'call_a1f3', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { id: 'call_b2e7', name: 'get_weather', arguments: '{"city":"Bergen"}' },
    ],
    finishReason: 'tool_calls',
    usage: usageOf(96, 41),
  },
  'tool-call-single-shot.sse': {
    content: null,
    toolCalls: [
      { id: 'call_k2f9x1qz', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_p8d3m0vw', name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
    ],
    finishReason: 'tool_calls',
    usage: usageOf(152, 38),
  },
  'deepseek-reasoning.sse': {
    content: '9.9 is larger than 9.11.',
    finishReason: 'stop',
    usage: usageOf(78, 52, 64, 41),
  },
  'vllm-usage-null-choices.sse': {
    content: 'Hello from vLLM.',
    finishReason: 'stop',
    usage: usageOf(12, 5),
  },
}

describe('OpenAI stream encoder: decoded fixtures through the openai SDK (STR-O-OUT-01)', () => {
  it.each(openAIFixtures)('%s re-encodes to a stream the SDK accumulates', async (name) => {
    const frames = encode(await decodeText(readFixture(name)))
    const expected = expectations[name]
    const completion = await sdkStream(frames).finalChatCompletion()
    const [choice] = completion.choices
    expect(completion.id).toBe('chatcmpl-gw1')
    expect(completion.model).toBe('client-model')
    expect(choice?.message.role).toBe('assistant')
    expect(choice?.message.content).toBe(expected.content)
    expect(choice?.finish_reason).toBe(expected.finishReason)
    expect(completion.usage).toEqual(expected.usage)
    const calls = (choice?.message.tool_calls ?? []).map((call) => {
      if (call.type !== 'function') throw new Error(`unexpected tool call type ${call.type}`)
      return { id: call.id, name: call.function.name, arguments: call.function.arguments }
    })
    expect(calls).toEqual(expected.toolCalls ?? [])
  })

  it.each(openAIFixtures)(
    'ID-01: %s repeats id, object, created and model on every chunk',
    async (name) => {
      const chunks = payloads(encode(await decodeText(readFixture(name))))
      for (const chunk of chunks) {
        expect(chunk).toMatchObject({
          id: 'chatcmpl-gw1',
          object: 'chat.completion.chunk',
          created: 1763000999,
          model: 'client-model',
        })
      }
      expect(chunks[0]?.['choices']).toEqual([
        {
          index: 0,
          delta: { role: 'assistant', content: '', refusal: null },
          logprobs: null,
          finish_reason: null,
        },
      ])
      const finishes = chunks.flatMap((chunk) =>
        chunk['choices'].filter((choice: any) => choice.finish_reason !== null),
      )
      expect(finishes).toHaveLength(1)
    },
  )

  it('RR-01: sends reasoning as delta.reasoning_content and never a signature', async () => {
    const events = await decodeText(readFixture('deepseek-reasoning.sse'))
    const withSignature = events.map((event) =>
      event.type === 'reasoning-end'
        ? { ...event, signature: { protocol: 'anthropic' as const, value: 'sig-secret' } }
        : event,
    )
    const frames = encode(withSignature)
    expect(frames.join('')).not.toContain('sig-secret')
    const reasoning: string[] = []
    for await (const chunk of sdkStream(frames)) {
      const delta = chunk.choices[0]?.delta as { reasoning_content?: string } | undefined
      if (delta?.reasoning_content !== undefined) reasoning.push(delta.reasoning_content)
    }
    expect(reasoning.join('')).toBe(
      'The user asks whether 9.11 or 9.9 is larger. 9.9 = 9.90 > 9.11 — größer.',
    )
  })
})

describe('OpenAI stream encoder: wire shape', () => {
  const textEvents: StreamEvent[] = [
    { type: 'message-start', id: 'upstream-id', model: 'upstream-model' },
    { type: 'text-start', index: 0 },
    { type: 'text-delta', index: 0, delta: 'Hi' },
    { type: 'text-end', index: 0 },
    { type: 'usage', usage: { input: { total: 5, cacheRead: 2 }, output: { total: 1 } } },
    {
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage: { input: { total: 7, cacheRead: 2 }, output: { total: 1 } },
    },
  ]

  it('WIRE-O-01: writes data frames exactly as OpenAI streams them', () => {
    const head =
      '{"id":"chatcmpl-gw1","object":"chat.completion.chunk","created":1763000999,"model":"client-model"'
    expect(encode(textEvents)).toEqual([
      `data: ${head},"choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}\n\n`,
      `data: ${head},"choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}],"usage":null}\n\n`,
      `data: ${head},"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}\n\n`,
      `data: ${head},"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":1,"total_tokens":8,"prompt_tokens_details":{"cached_tokens":2},"completion_tokens_details":{"reasoning_tokens":0}}}\n\n`,
      'data: [DONE]\n\n',
    ])
  })

  it('STR-O-OUT-02: writes no usage field at all when the client did not ask for usage', async () => {
    const frames = encode(await decodeText(readFixture('tool-calls.sse')), { includeUsage: false })
    const chunks = payloads(frames)
    for (const chunk of chunks) expect(chunk).not.toHaveProperty('usage')
    expect(chunks.some((chunk) => chunk['choices'].length === 0)).toBe(false)
    expect(frames.at(-1)).toBe('data: [DONE]\n\n')
    const completion = await sdkStream(frames).finalChatCompletion()
    expect(completion.usage).toBeUndefined()
    expect(completion.choices[0]?.message.tool_calls).toHaveLength(2)
  })

  it('bug 1, STR-AO-03: numbers tool calls 0, 1… after a reasoning and a text block', async () => {
    const events: StreamEvent[] = [
      { type: 'message-start', id: 'msg_1', model: 'claude' },
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, delta: 'plan' },
      { type: 'reasoning-end', index: 0 },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: 'Calling.' },
      { type: 'text-end', index: 1 },
      { type: 'tool-call-start', index: 2, id: 'toolu_a', name: 'a' },
      { type: 'tool-call-delta', index: 2, argumentsDelta: '{"x":1}' },
      { type: 'tool-call-end', index: 2 },
      { type: 'tool-call-start', index: 3, id: 'toolu_b', name: 'b' },
      { type: 'tool-call-delta', index: 3, argumentsDelta: '{"y":' },
      { type: 'tool-call-delta', index: 3, argumentsDelta: '2}' },
      { type: 'tool-call-end', index: 3 },
      {
        type: 'finish',
        finishReason: { unified: 'tool-calls' },
        usage: { input: {}, output: {} },
      },
    ]
    const frames = encode(events)
    const toolCalls = payloads(frames).flatMap(
      (chunk) => chunk['choices'][0]?.delta.tool_calls ?? [],
    )
    expect(toolCalls).toEqual([
      { index: 0, id: 'toolu_a', type: 'function', function: { name: 'a', arguments: '' } },
      { index: 0, function: { arguments: '{"x":1}' } },
      { index: 1, id: 'toolu_b', type: 'function', function: { name: 'b', arguments: '' } },
      { index: 1, function: { arguments: '{"y":' } },
      { index: 1, function: { arguments: '2}' } },
    ])
    const completion = await sdkStream(frames).finalChatCompletion()
    expect(completion.choices[0]?.message.content).toBe('Calling.')
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: 'toolu_a', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
      { id: 'toolu_b', type: 'function', function: { name: 'b', arguments: '{"y":2}' } },
    ])
  })

  it('RR-04: sends a refusal as a delta.refusal chunk before the finish chunk', async () => {
    const frames = encode([
      { type: 'message-start', id: 'msg_r', model: 'claude' },
      {
        type: 'finish',
        finishReason: { unified: 'content-filter', raw: 'refusal' },
        refusal: 'I can’t help with that.',
        usage: { input: { total: 3 }, output: { total: 0 } },
      },
    ])
    expect(payloads(frames)[1]?.['choices'][0]).toEqual({
      index: 0,
      delta: { refusal: 'I can’t help with that.' },
      logprobs: null,
      finish_reason: null,
    })
    const completion = await sdkStream(frames).finalChatCompletion()
    expect(completion.choices[0]?.message.refusal).toBe('I can’t help with that.')
    expect(completion.choices[0]?.finish_reason).toBe('content_filter')
  })

  it('sends the role chunk first even when the first event is not message-start', () => {
    const frames = encode([
      { type: 'text-delta', index: 0, delta: 'x' },
      { type: 'finish', finishReason: { unified: 'stop' }, usage: { input: {}, output: {} } },
    ])
    expect(payloads(frames)[0]?.['choices'][0].delta).toEqual({
      role: 'assistant',
      content: '',
      refusal: null,
    })
  })
})

describe('OpenAI stream encoder: errors and the end', () => {
  const error = new GatewayError('upstream_error', 'Upstream overloaded mid-stream.')
  const partial: StreamEvent[] = [
    { type: 'message-start', id: 'msg_e', model: 'claude' },
    { type: 'text-start', index: 0 },
    { type: 'text-delta', index: 0, delta: 'partial ' },
    { type: 'text-delta', index: 0, delta: 'answer' },
    { type: 'error', error },
  ]

  it('ERR-S-O: ends with the event: error frame and no [DONE]', () => {
    const frames = encode(partial)
    expect(frames.at(-1)).toBe(
      'event: error\ndata: {"error":{"message":"Upstream overloaded mid-stream.","type":"server_error","param":null,"code":"upstream_error"}}\n\n',
    )
    expect(frames.join('')).not.toContain('[DONE]')
  })

  it('ERR-S-O: makes the SDK iteration throw after the partial text', async () => {
    const seen: string[] = []
    const read = async () => {
      for await (const chunk of sdkStream(encode(partial))) {
        const content = chunk.choices[0]?.delta.content
        if (content) seen.push(content)
      }
    }
    await expect(read()).rejects.toThrow('Upstream overloaded mid-stream.')
    expect(seen.join('')).toBe('partial answer')
  })

  it('STR-END-03: writes nothing after [DONE] or after an error', () => {
    const encoder = createOpenAIStreamEncoder(options)
    encoder.push({ type: 'message-start', id: 'm', model: 'm' })
    const finish = encoder.push({
      type: 'finish',
      finishReason: { unified: 'stop' },
      usage: { input: {}, output: {} },
    })
    expect(finish.at(-1)).toBe('data: [DONE]\n\n')
    expect(encoder.push({ type: 'text-delta', index: 0, delta: 'late' })).toEqual([])
    expect(encoder.push({ type: 'error', error })).toEqual([])
    expect(encoder.end()).toEqual([])

    const failed = createOpenAIStreamEncoder(options)
    expect(failed.push({ type: 'error', error })).toHaveLength(1)
    expect(failed.push({ type: 'text-delta', index: 0, delta: 'late' })).toEqual([])
    expect(failed.end()).toEqual([])
  })

  it('ends a stream that never finished with an error frame, not [DONE]', () => {
    const encoder = createOpenAIStreamEncoder(options)
    encoder.push({ type: 'message-start', id: 'm', model: 'm' })
    expect(encoder.end()).toEqual([
      'event: error\ndata: {"error":{"message":"The stream ended before the answer finished.","type":"server_error","param":null,"code":"upstream_error"}}\n\n',
    ])
  })
})
