import { readFileSync } from 'node:fs'
import Anthropic from '@anthropic-ai/sdk'
import { describe, expect, it } from 'vitest'
import type { StreamEvent, Usage } from '../../../src/canonical/types'
import { GatewayError } from '../../../src/errors'
import { createAnthropicStreamDecoder } from '../../../src/protocols/anthropic/stream-decode'
import { createAnthropicStreamEncoder } from '../../../src/protocols/anthropic/stream-encode'
import { createSseReader } from '../../../src/sse/sse-reader'
import { streamOfChunks } from '../../helpers/streams'

const options = { id: 'msg_gw_0001', model: 'claude-sonnet-4-6' }

function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/anthropic/${name}`, import.meta.url), 'utf8')
}

async function decodeFixture(name: string): Promise<StreamEvent[]> {
  const body = streamOfChunks([new TextEncoder().encode(fixture(name))])
  const reader = createSseReader(body, { maxBufferSize: 1 << 20 })
  const decoder = createAnthropicStreamDecoder()
  const events: StreamEvent[] = []
  for (let message = await reader.next(); message !== undefined; message = await reader.next()) {
    events.push(...decoder.push(message))
  }
  return [...events, ...decoder.end()]
}

function encode(events: readonly StreamEvent[]): string[] {
  const encoder = createAnthropicStreamEncoder(options)
  return [...events.flatMap((event) => encoder.push(event)), ...encoder.end()]
}

/** Runs an SSE body through the official SDK's `MessageStream`, as a client of the gateway would. */
function sdkStream(body: string) {
  const response = new Response(body, {
    headers: { 'content-type': 'text/event-stream', 'request-id': 'req_test' },
  })
  const client = new Anthropic({ apiKey: 'x', maxRetries: 0, fetch: async () => response })
  return client.messages.stream({
    model: 'claude-sonnet-4-6',
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'Hello' }],
  })
}

type Frame = { event: string; data: Record<string, unknown> & { type: string; index?: number } }

/** Splits encoder output into frames, checking that each is exactly one `event:` + `data:` pair. */
function parseFrames(frames: readonly string[]): Frame[] {
  return frames.map((text) => {
    const match = /^event: ([a-z_]+)\ndata: (.+)\n\n$/.exec(text)
    if (match === null) throw new Error(`Not an event + data frame: ${JSON.stringify(text)}`)
    const data = JSON.parse(match[2]!) as Frame['data']
    expect(data.type).toBe(match[1])
    return { event: match[1]!, data }
  })
}

/**
 * STR-A-OUT-01's structural rules: message_start first, blocks numbered 0, 1, 2… and never
 * interleaved, each started and stopped once, deltas only for the open block, one message_delta
 * after the last block and message_stop last (or an error last).
 */
function expectWellFormed(frames: readonly string[]): Frame[] {
  const parsed = parseFrames(frames)
  expect(parsed[0]?.event).toBe('message_start')
  let open: number | undefined
  let nextIndex = 0
  let messageDeltas = 0
  parsed.forEach((frame, position) => {
    const isLast = position === parsed.length - 1
    switch (frame.event) {
      case 'message_start':
        expect(position).toBe(0)
        break
      case 'content_block_start':
        expect(open).toBeUndefined()
        expect(frame.data.index).toBe(nextIndex)
        open = nextIndex
        nextIndex += 1
        break
      case 'content_block_delta':
        expect(frame.data.index).toBe(open)
        break
      case 'content_block_stop':
        expect(frame.data.index).toBe(open)
        open = undefined
        break
      case 'message_delta':
        expect(open).toBeUndefined()
        messageDeltas += 1
        break
      case 'message_stop':
        expect(messageDeltas).toBe(1)
        expect(isLast).toBe(true)
        break
      case 'error':
        expect(isLast).toBe(true)
        break
      case 'ping':
        break
      default:
        throw new Error(`Unexpected event ${frame.event}`)
    }
  })
  return parsed
}

/** The token counts of an SDK usage object, without the fields the gateway does not carry. */
function counts(usage: Anthropic.Usage) {
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } =
    usage
  return { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens }
}

const zeroUsage = {
  input_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: 0,
}

describe('Anthropic stream encoder', () => {
  describe('round trip through the official SDK', () => {
    it('STR-A-OUT-01: re-encodes a text stream that MessageStream accumulates into the same message', async () => {
      const frames = encode(await decodeFixture('text.sse'))
      expectWellFormed(frames)
      const message = await sdkStream(frames.join('')).finalMessage()
      const original = await sdkStream(fixture('text.sse')).finalMessage()
      expect(message).toMatchObject({
        id: 'msg_gw_0001',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        content: [{ type: 'text', text: 'Grüße aus 東京 👋🏽 — how can I help?' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        stop_details: null,
        usage: {
          input_tokens: 21,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 2048,
          output_tokens: 17,
        },
      })
      expect(message.content).toEqual(original.content)
      expect(counts(message.usage)).toEqual(counts(original.usage))
    })

    it('STR-A-OUT-01: re-encodes tool calls whose input the SDK parses from input_json_delta', async () => {
      const frames = encode(await decodeFixture('tool-use.sse'))
      const parsed = expectWellFormed(frames)
      const message = await sdkStream(frames.join('')).finalMessage()
      expect(message.content).toEqual([
        { type: 'text', text: "I'll check the current weather in Zürich for you." },
        {
          type: 'tool_use',
          id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          name: 'get_weather',
          input: { location: 'Zürich, CH', unit: 'celsius' },
        },
      ])
      expect(message.stop_reason).toBe('tool_use')
      expect(message.usage).toMatchObject({
        input_tokens: 472,
        cache_creation_input_tokens: 1536,
        output_tokens: 89,
      })
      // Tool input travels only in input_json_delta; the start block's input stays empty.
      const toolStart = parsed.find(
        (frame) => frame.event === 'content_block_start' && frame.data.index === 1,
      )
      expect(toolStart?.data['content_block']).toEqual({
        type: 'tool_use',
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        name: 'get_weather',
        input: {},
      })
      const toolDeltas = parsed.filter(
        (frame) => frame.event === 'content_block_delta' && frame.data.index === 1,
      )
      expect(toolDeltas.map((frame) => frame.data['delta'])).toEqual([
        { type: 'input_json_delta', partial_json: '{"location": "Zür' },
        { type: 'input_json_delta', partial_json: 'ich, CH"' },
        { type: 'input_json_delta', partial_json: ', "unit": "cel' },
        { type: 'input_json_delta', partial_json: 'sius"}' },
      ])
    })

    it('RR-02: re-encodes a thinking block with its Anthropic signature byte for byte', async () => {
      const frames = encode(await decodeFixture('thinking.sse'))
      expectWellFormed(frames)
      const message = await sdkStream(frames.join('')).finalMessage()
      const original = await sdkStream(fixture('thinking.sse')).finalMessage()
      expect(message.content).toEqual(original.content)
      expect(counts(message.usage)).toEqual(counts(original.usage))
      expect(message.content[0]).toMatchObject({
        type: 'thinking',
        thinking: expect.stringContaining('So it is 21.'),
        signature: expect.stringMatching(/^EqQB/),
      })
      expect(message.usage.output_tokens).toBe(118)
    })

    it('RR-04: re-encodes a refusal with no content blocks and its explanation', async () => {
      const frames = encode(await decodeFixture('refusal.sse'))
      expect(expectWellFormed(frames).map((frame) => frame.event)).toEqual([
        'message_start',
        'ping',
        'message_delta',
        'message_stop',
      ])
      const message = await sdkStream(frames.join('')).finalMessage()
      expect(message.content).toEqual([])
      expect(message.stop_reason).toBe('refusal')
      expect(message.stop_details).toEqual({
        type: 'refusal',
        category: null,
        explanation:
          "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
      })
    })

    it('ERR-S-A: re-encodes a mid-stream error that the SDK throws as overloaded_error after the text', async () => {
      const frames = encode(await decodeFixture('error-mid-stream.sse'))
      const parsed = expectWellFormed(frames)
      expect(parsed.at(-1)).toEqual({
        event: 'error',
        data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      })
      expect(parsed.some((frame) => frame.event === 'message_stop')).toBe(false)
      const stream = sdkStream(frames.join(''))
      let text = ''
      stream.on('text', (delta) => {
        text += delta
      })
      const failure = await stream.finalMessage().then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(failure).toBeInstanceOf(Anthropic.APIError)
      expect(failure).toMatchObject({
        type: 'overloaded_error',
        error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      })
      expect(text).toBe('Here is the first part of the answer')
    })
  })

  it('WIRE-A-01: writes every frame as event + data, message_start and ping first', () => {
    const frames = encode([
      {
        type: 'message-start',
        id: 'upstream-id',
        model: 'upstream-model',
        usage: { input: { total: 120, cacheRead: 100 }, output: {} },
      },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'Hi "there"\n' },
      { type: 'text-end', index: 0 },
      {
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: { input: { total: 120, cacheRead: 100 }, output: { total: 3 } },
      },
    ])
    expect(frames).toEqual([
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_gw_0001","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-6","stop_reason":null,"stop_sequence":null,"stop_details":null,"usage":{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"output_tokens":0}}}\n\n',
      'event: ping\ndata: {"type":"ping"}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi \\"there\\"\\n"}}\n\n',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null,"stop_details":null},"usage":{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"output_tokens":3}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ])
  })

  it('STR-A-OUT-02: puts the input usage known before the first block into message_start', () => {
    const frames = encode([
      { type: 'usage', usage: { input: { total: 61, uncached: 61 }, output: { total: 1 } } },
      { type: 'text-delta', index: 0, delta: 'ok' },
    ])
    const [start] = parseFrames(frames)
    expect(start?.data['message']).toMatchObject({
      usage: { ...zeroUsage, input_tokens: 61, output_tokens: 1 },
    })
  })

  it('starts the message lazily when no message-start came, before the first block', () => {
    const events = parseFrames(
      encode([
        { type: 'tool-call-start', index: 0, id: 'call_1', name: 'lookup' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
        { type: 'tool-call-end', index: 0 },
      ]),
    ).map((frame) => frame.event)
    expect(events).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
    ])
  })

  it('writes no block for a text block without deltas, and numbers the next block 0', async () => {
    const frames = encode([
      { type: 'message-start', id: 'x', model: 'm' },
      { type: 'text-start', index: 0 },
      { type: 'text-end', index: 0 },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: '' },
      { type: 'text-end', index: 1 },
      { type: 'tool-call-start', index: 2, id: 'call_1', name: 'lookup' },
      { type: 'tool-call-delta', index: 2, argumentsDelta: '{"q":1}' },
      { type: 'tool-call-end', index: 2 },
      { type: 'finish', finishReason: { unified: 'tool-calls' }, usage: { input: {}, output: {} } },
    ])
    const parsed = expectWellFormed(frames)
    expect(parsed.filter((frame) => frame.event === 'content_block_start')).toHaveLength(1)
    const message = await sdkStream(frames.join('')).finalMessage()
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'lookup', input: { q: 1 } },
    ])
  })

  it('RR-02 (pinned): streams foreign reasoning as thinking with the gateway tag, never a forged signature', async () => {
    const frames = encode([
      { type: 'message-start', id: 'x', model: 'm' },
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, delta: 'Gemini thoughts' },
      { type: 'reasoning-end', index: 0, signature: { protocol: 'gemini', value: 'CiQB' } },
      { type: 'reasoning-start', index: 1 },
      { type: 'reasoning-delta', index: 1, delta: 'OpenAI reasoning_content' },
      { type: 'reasoning-end', index: 1 },
      { type: 'reasoning-start', index: 2, redacted: { protocol: 'gemini', value: 'opaque' } },
      { type: 'reasoning-end', index: 2 },
      { type: 'text-delta', index: 3, delta: 'Answer' },
      { type: 'text-end', index: 3 },
      { type: 'finish', finishReason: { unified: 'stop' }, usage: { input: {}, output: {} } },
    ])
    expectWellFormed(frames)
    expect(frames.join('')).not.toMatch(/CiQB|opaque/)
    const message = await sdkStream(frames.join('')).finalMessage()
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Gemini thoughts', signature: 'gw1.unsigned' },
      { type: 'thinking', thinking: 'OpenAI reasoning_content', signature: 'gw1.unsigned' },
      { type: 'text', text: 'Answer' },
    ])
  })

  it('RR-03: keeps Anthropic redacted thinking verbatim', async () => {
    const frames = encode([
      { type: 'reasoning-start', index: 0, redacted: { protocol: 'anthropic', value: 'EmwKAhgB' } },
      { type: 'reasoning-end', index: 0 },
      { type: 'text-delta', index: 1, delta: 'Done.' },
      { type: 'finish', finishReason: { unified: 'stop' }, usage: { input: {}, output: {} } },
    ])
    expectWellFormed(frames)
    const message = await sdkStream(frames.join('')).finalMessage()
    expect(message.content).toEqual([
      { type: 'redacted_thinking', data: 'EmwKAhgB' },
      { type: 'text', text: 'Done.' },
    ])
  })

  it('STR-A-OUT-01: closes the open block before another one starts and drops late events', () => {
    const frames = encode([
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'a' },
      { type: 'tool-call-start', index: 1, id: 'call_1', name: 'lookup' },
      { type: 'text-delta', index: 0, delta: 'late' },
      { type: 'text-end', index: 0 },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'tool-call-delta', index: 1, argumentsDelta: 'late' },
      { type: 'tool-call-delta', index: 7, argumentsDelta: 'no start' },
      { type: 'text-delta', index: 2, delta: 'b' },
      { type: 'finish', finishReason: { unified: 'stop' }, usage: { input: {}, output: {} } },
    ])
    const parsed = expectWellFormed(frames)
    expect(frames.join('')).not.toMatch(/late|no start/)
    expect(
      parsed
        .filter((frame) => frame.event.startsWith('content_block'))
        .map((frame) => `${frame.event}:${String(frame.data.index)}`),
    ).toEqual([
      'content_block_start:0',
      'content_block_delta:0',
      'content_block_stop:0',
      'content_block_start:1',
      'content_block_delta:1',
      'content_block_stop:1',
      'content_block_start:2',
      'content_block_delta:2',
      'content_block_stop:2',
    ])
  })

  it('maps the finish reason, the stop sequence and the cumulative usage into message_delta', () => {
    const usage: Usage = {
      input: { total: 160, uncached: 10, cacheRead: 100, cacheWrite: 50 },
      output: { total: 42 },
    }
    const frames = encode([
      { type: 'message-start', id: 'x', model: 'm', usage: { input: usage.input, output: {} } },
      { type: 'text-delta', index: 0, delta: 'x' },
      { type: 'finish', finishReason: { unified: 'stop' }, stopSequence: 'END', usage },
    ])
    const messageDelta = parseFrames(frames).find((frame) => frame.event === 'message_delta')
    expect(messageDelta?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'stop_sequence', stop_sequence: 'END', stop_details: null },
      usage: {
        input_tokens: 10,
        cache_creation_input_tokens: 50,
        cache_read_input_tokens: 100,
        output_tokens: 42,
      },
    })
  })

  it('STR-END-03: writes nothing after message_stop, and end() writes nothing', () => {
    const encoder = createAnthropicStreamEncoder(options)
    encoder.push({
      type: 'finish',
      finishReason: { unified: 'stop' },
      usage: { input: {}, output: {} },
    })
    expect(encoder.push({ type: 'text-delta', index: 0, delta: 'more' })).toEqual([])
    expect(encoder.push({ type: 'error', error: new GatewayError('internal', 'x') })).toEqual([])
    expect(encoder.end()).toEqual([])
  })

  it('ERR-S-A: writes the error event without closing blocks or a message_stop, then nothing', () => {
    const encoder = createAnthropicStreamEncoder(options)
    encoder.push({ type: 'text-delta', index: 0, delta: 'partial' })
    const frames = encoder.push({
      type: 'error',
      error: new GatewayError('rate_limited', 'Slow down.'),
    })
    expect(frames).toEqual([
      'event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"Slow down."}}\n\n',
    ])
    expect(encoder.push({ type: 'text-delta', index: 0, delta: 'more' })).toEqual([])
    expect(encoder.end()).toEqual([])
  })

  it('leaves a stream that never finished to the relay: end() writes nothing', () => {
    const encoder = createAnthropicStreamEncoder(options)
    encoder.push({ type: 'text-delta', index: 0, delta: 'partial' })
    expect(encoder.end()).toEqual([])
  })
})
