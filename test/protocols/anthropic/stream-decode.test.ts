import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { StreamEvent, Usage } from '../../../src/canonical/types'
import { isGatewayError } from '../../../src/errors'
import { createAnthropicStreamDecoder } from '../../../src/protocols/anthropic/stream-decode'
import type { SseMessage } from '../../../src/sse/sse-message'
import { createSseReader } from '../../../src/sse/sse-reader'
import { byteByByte, everySplit, randomSplit, streamOfChunks } from '../../helpers/streams'

const fixtureNames = [
  'text.sse',
  'tool-use.sse',
  'thinking.sse',
  'refusal.sse',
  'error-mid-stream.sse',
] as const

function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/anthropic/${name}`, import.meta.url), 'utf8')
}

/** Events with each GatewayError as a plain object, so that `toEqual` compares what matters. */
function plain(events: StreamEvent[]): unknown[] {
  return events.map((event) =>
    event.type === 'error' && isGatewayError(event.error)
      ? {
          type: 'error',
          error: {
            code: event.error.code,
            status: event.error.status,
            message: event.error.message,
            upstream: event.error.upstream,
          },
        }
      : event,
  )
}

async function decodeChunks(chunks: readonly Uint8Array[]): Promise<unknown[]> {
  const reader = createSseReader(streamOfChunks(chunks), { maxBufferSize: 1 << 20 })
  const decoder = createAnthropicStreamDecoder()
  const events: StreamEvent[] = []
  for (let message = await reader.next(); message !== undefined; message = await reader.next()) {
    events.push(...decoder.push(message))
  }
  events.push(...decoder.end())
  return plain(events)
}

function decodeText(text: string): Promise<unknown[]> {
  return decodeChunks([new TextEncoder().encode(text)])
}

/** Decodes messages given as `[event name, data]` pairs. */
function decodeFrames(frames: ReadonlyArray<[string | undefined, unknown]>): unknown[] {
  const decoder = createAnthropicStreamDecoder()
  const events = frames.flatMap(([event, data]) =>
    decoder.push({ type: 'event', event, data: JSON.stringify(data) }),
  )
  return plain([...events, ...decoder.end()])
}

/** Canonical usage; `cacheWrite1h` and `reasoning` only when the frames name them. */
function usage(
  uncached: number,
  cacheRead: number,
  cacheWrite: number,
  output: number | undefined,
  split?: { cacheWrite1h?: number; reasoning?: number },
): Usage {
  return {
    input: {
      total: uncached + cacheRead + cacheWrite,
      uncached,
      cacheRead,
      cacheWrite,
      ...(split?.cacheWrite1h === undefined ? {} : { cacheWrite1h: split.cacheWrite1h }),
    },
    output: {
      total: output,
      ...(split?.reasoning === undefined ? {} : { reasoning: split.reasoning }),
    },
  }
}

const start = (input: Record<string, unknown>): [string, unknown] => [
  'message_start',
  {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'claude-sonnet-4-6',
      stop_reason: null,
      stop_sequence: null,
      usage: { ...input, output_tokens: 1 },
    },
  },
]
const stop: [string, unknown] = ['message_stop', { type: 'message_stop' }]

describe('Anthropic stream decoder', () => {
  it('decodes a text stream into message-start, one text block, usage and finish', async () => {
    const first = usage(21, 2048, 0, 1, { cacheWrite1h: 0 })
    const last = usage(21, 2048, 0, 17, { cacheWrite1h: 0 })
    expect(await decodeText(fixture('text.sse'))).toEqual([
      {
        type: 'message-start',
        id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
        model: 'claude-sonnet-4-6',
        usage: first,
      },
      { type: 'usage', usage: first },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'Grüße' },
      { type: 'text-delta', index: 0, delta: ' aus 東京' },
      { type: 'text-delta', index: 0, delta: ' 👋🏽 — how can I help?' },
      { type: 'text-end', index: 0 },
      { type: 'usage', usage: last },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage: last },
    ])
  })

  it('decodes a tool_use block into tool-call events with the input fragments as they came', async () => {
    const first = usage(472, 0, 1536, 2, { cacheWrite1h: 0 })
    const last = usage(472, 0, 1536, 89, { cacheWrite1h: 0 })
    expect(await decodeText(fixture('tool-use.sse'))).toEqual([
      {
        type: 'message-start',
        id: 'msg_014p7gG3wDgGV9EUtLvnow3U',
        model: 'claude-sonnet-4-6',
        usage: first,
      },
      { type: 'usage', usage: first },
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: "I'll check the current" },
      { type: 'text-delta', index: 0, delta: ' weather in Zürich for you.' },
      { type: 'text-end', index: 0 },
      {
        type: 'tool-call-start',
        index: 1,
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        name: 'get_weather',
      },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"location": "Zür' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: 'ich, CH"' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: ', "unit": "cel' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: 'sius"}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'usage', usage: last },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage: last },
    ])
  })

  it('decodes a thinking block with its signature tagged anthropic on reasoning-end', async () => {
    const events = await decodeText(fixture('thinking.sse'))
    const signature = fixture('thinking.sse').match(/"signature":"(E[^"]+)"/)?.[1]
    expect(signature).toBeDefined()
    expect(events.slice(2)).toEqual([
      { type: 'reasoning-start', index: 0 },
      {
        type: 'reasoning-delta',
        index: 0,
        delta: 'The user asks for gcd(1071, 462). Euclid: 1071 = 2 × 462 + 147,',
      },
      {
        type: 'reasoning-delta',
        index: 0,
        delta: ' 462 = 3 × 147 + 21, 147 = 7 × 21 + 0. So it is 21.',
      },
      { type: 'reasoning-end', index: 0, signature: { protocol: 'anthropic', value: signature } },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: 'gcd(1071, 462) = **21**:' },
      { type: 'text-delta', index: 1, delta: ' 1071 = 21 × 51 and 462 = 21 × 22.' },
      { type: 'text-end', index: 1 },
      { type: 'usage', usage: usage(47, 0, 0, 118, { cacheWrite1h: 0, reasoning: 62 }) },
      {
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'end_turn' },
        usage: usage(47, 0, 0, 118, { cacheWrite1h: 0, reasoning: 62 }),
      },
    ])
  })

  it('STR-AO-07: decodes a refusal without content blocks, keeping the explanation', async () => {
    const last = usage(18, 0, 0, 5, { cacheWrite1h: 0 })
    expect((await decodeText(fixture('refusal.sse'))).slice(2)).toEqual([
      { type: 'usage', usage: last },
      {
        type: 'finish',
        finishReason: { unified: 'content-filter', raw: 'refusal' },
        refusal:
          "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
        usage: last,
      },
    ])
  })

  it('ERR-S-A: decodes a mid-stream error event into an overloaded error, after the text', async () => {
    const body = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }
    expect((await decodeText(fixture('error-mid-stream.sse'))).slice(2)).toEqual([
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'Here is the first part of' },
      { type: 'text-delta', index: 0, delta: ' the answer' },
      {
        type: 'error',
        error: {
          code: 'overloaded',
          status: 529,
          message: 'Overloaded',
          upstream: { status: 529, body },
        },
      },
    ])
  })

  it.each(fixtureNames)(
    'WIRE-ALL-03: decodes %s identically at every byte split and at random splits',
    async (name) => {
      const text = fixture(name)
      const expected = await decodeText(text)
      for (const chunks of everySplit(text)) expect(await decodeChunks(chunks)).toEqual(expected)
      expect(await decodeChunks(byteByByte(text))).toEqual(expected)
      for (let seed = 1; seed <= 20; seed += 1) {
        expect(await decodeChunks(randomSplit(text, seed))).toEqual(expected)
      }
    },
  )

  it('USE-04: takes input_tokens from message_delta over those of message_start', () => {
    const events = decodeFrames([
      start({ input_tokens: 43 }),
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { input_tokens: 61, output_tokens: 2 },
        },
      ],
      stop,
    ])
    const final = { input: { total: 61, uncached: 61 }, output: { total: 2 } }
    expect(events.slice(-2)).toEqual([
      { type: 'usage', usage: final },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage: final },
    ])
  })

  it('USE-04: keeps message_start fields that message_delta omits or sends as null', () => {
    const events = decodeFrames([
      start({ input_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 }),
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'max_tokens', stop_sequence: null },
          usage: { input_tokens: 7, cache_creation_input_tokens: null, output_tokens: 50 },
        },
      ],
      stop,
    ])
    expect(events.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'length', raw: 'max_tokens' },
      usage: usage(7, 100, 20, 50),
    })
  })

  it('keeps the matched stop sequence', () => {
    const events = decodeFrames([
      start({ input_tokens: 3 }),
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'stop_sequence', stop_sequence: '###' },
          usage: { output_tokens: 4 },
        },
      ],
      stop,
    ])
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop_sequence' },
      stopSequence: '###',
    })
  })

  it('skips block types it has no place for and numbers the next blocks without a gap', () => {
    const blockStart = (index: number, block: unknown): [string, unknown] => [
      'content_block_start',
      { type: 'content_block_start', index, content_block: block },
    ]
    const delta = (index: number, value: unknown): [string, unknown] => [
      'content_block_delta',
      { type: 'content_block_delta', index, delta: value },
    ]
    const blockStop = (index: number): [string, unknown] => [
      'content_block_stop',
      { type: 'content_block_stop', index },
    ]
    const events = decodeFrames([
      start({ input_tokens: 3 }),
      blockStart(0, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }),
      delta(0, { type: 'input_json_delta', partial_json: '{"query":"weather"}' }),
      blockStop(0),
      blockStart(1, { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }),
      blockStop(1),
      blockStart(2, { type: 'text', text: '' }),
      delta(2, { type: 'citations_delta', citation: { type: 'web_search_result_location' } }),
      delta(2, { type: 'text_delta', text: 'Sunny.' }),
      blockStop(2),
      blockStart(3, { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' }),
      blockStop(3),
      blockStart(4, { type: 'tool_use', id: 'toolu_1', name: 'noop', input: {} }),
      delta(4, { type: 'input_json_delta', partial_json: '' }),
      blockStop(4),
      stop,
    ])
    expect(events.slice(2, -1)).toEqual([
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'Sunny.' },
      { type: 'text-end', index: 0 },
      {
        type: 'reasoning-start',
        index: 1,
        redacted: { protocol: 'anthropic', value: 'EmwKAhgBEgy3va3pzix' },
      },
      { type: 'reasoning-end', index: 1 },
      { type: 'tool-call-start', index: 2, id: 'toolu_1', name: 'noop' },
      { type: 'tool-call-end', index: 2 },
    ])
  })

  it('ends an open block before the next one starts, and ignores events for other indices', () => {
    const events = decodeFrames([
      start({ input_tokens: 3 }),
      ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_start', { index: 1, content_block: { type: 'text', text: 'pre' } }],
      ['content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'late' } }],
      ['content_block_stop', { index: 0 }],
      ['content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'fix' } }],
      stop,
    ])
    expect(events.slice(2)).toEqual([
      { type: 'text-start', index: 0 },
      { type: 'text-end', index: 0 },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: 'pre' },
      { type: 'text-delta', index: 1, delta: 'fix' },
      { type: 'text-end', index: 1 },
      {
        type: 'finish',
        finishReason: { unified: 'other' },
        usage: { input: { total: 3, uncached: 3 }, output: { total: 1 } },
      },
    ])
  })

  it('dispatches on the data type when a frame has no event name', () => {
    const [startFrame] = [start({ input_tokens: 3 })]
    const events = decodeFrames([
      [undefined, startFrame[1]],
      [undefined, { type: 'ping' }],
      [undefined, { type: 'content_block_start', index: 0, content_block: { type: 'text' } }],
      [
        undefined,
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
      ],
      [undefined, { type: 'content_block_stop', index: 0 }],
      [undefined, { type: 'message_stop' }],
    ])
    expect(events.map((event) => (event as StreamEvent).type)).toEqual([
      'message-start',
      'usage',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ])
  })

  it('gives nothing for pings and comments, and ignores a repeated message_start', () => {
    const decoder = createAnthropicStreamDecoder()
    const push = (message: SseMessage) => decoder.push(message)
    expect(push({ type: 'comment', comment: 'keep-alive' })).toEqual([])
    expect(push({ type: 'event', event: 'ping', data: '{"type": "ping"}' })).toEqual([])
    const [, data] = start({ input_tokens: 3 })
    expect(
      push({ type: 'event', event: 'message_start', data: JSON.stringify(data) }),
    ).toHaveLength(2)
    expect(push({ type: 'event', event: 'message_start', data: JSON.stringify(data) })).toEqual([])
  })

  it('STR-OA-06: ends in an upstream error when the body ends before message_stop', () => {
    const events = decodeFrames([
      start({ input_tokens: 3 }),
      ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hel' } }],
    ])
    expect(events.at(-1)).toEqual({
      type: 'error',
      error: {
        code: 'upstream_error',
        status: 502,
        message: 'The upstream stream ended before message_stop.',
        upstream: undefined,
      },
    })
  })

  it('STR-END-03: gives nothing after message_stop or an error, at the end included', () => {
    const decoder = createAnthropicStreamDecoder()
    decoder.push({ type: 'event', event: 'message_stop', data: '{"type":"message_stop"}' })
    const [, data] = start({ input_tokens: 3 })
    expect(
      decoder.push({ type: 'event', event: 'message_start', data: JSON.stringify(data) }),
    ).toEqual([])
    expect(decoder.end()).toEqual([])

    const failed = createAnthropicStreamDecoder()
    expect(failed.push({ type: 'event', event: 'error', data: '{"type":"error"}' })).toHaveLength(1)
    expect(failed.end()).toEqual([])
  })

  it.each([
    ['overloaded_error', 'overloaded', 529],
    ['rate_limit_error', 'rate_limited', 429],
    ['api_error', 'upstream_error', 500],
    ['invalid_request_error', 'upstream_error', 400],
    ['timeout_error', 'upstream_error', 504],
    ['constructor', 'upstream_error', 500],
  ])('ERR-S-A: maps a mid-stream %s to %s with status %i', (type, code, status) => {
    const body = { type: 'error', error: { type, message: `upstream says ${type}` } }
    expect(decodeFrames([['error', body]])).toEqual([
      {
        type: 'error',
        error: { code, status, message: `upstream says ${type}`, upstream: { status, body } },
      },
    ])
  })

  it('turns an event that is not JSON into an upstream error', () => {
    const decoder = createAnthropicStreamDecoder()
    const events = plain(decoder.push({ type: 'event', event: 'message_start', data: '{"type":' }))
    expect(events).toMatchObject([
      { type: 'error', error: { code: 'upstream_error', status: 502 } },
    ])
  })
})
