import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { StreamEvent } from '../../../src/canonical/types'
import { isGatewayError } from '../../../src/errors'
import { createConverseStreamDecoder } from '../../../src/protocols/converse/stream-decode'
import { decodeSseChunks, everySplit, idGenerator } from '../../helpers/streams'

/** A Converse stream as the Bedrock kind's reader hands it on: SSE named by event type. */
function sse(frames: ReadonlyArray<[string, unknown]>): string {
  return frames
    .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    .join('')
}

function decoder() {
  return createConverseStreamDecoder({
    generateId: idGenerator('conv'),
    model: 'amazon.nova-pro-v1:0',
  })
}

function plain(events: StreamEvent[]): unknown[] {
  return events.map((event) =>
    event.type === 'error' && isGatewayError(event.error)
      ? {
          type: 'error',
          code: event.error.code,
          status: event.error.status,
          message: event.error.message,
        }
      : event,
  )
}

function decodeFrames(frames: ReadonlyArray<[string, unknown]>): unknown[] {
  const decoding = decoder()
  const events = frames.flatMap(([event, data]) =>
    decoding.push({ type: 'event', event, data: JSON.stringify(data) }),
  )
  return plain([...events, ...decoding.end()])
}

const usage = {
  inputTokens: 12,
  outputTokens: 30,
  totalTokens: 242,
  cacheReadInputTokens: 100,
  cacheWriteInputTokens: 100,
  cacheDetails: [
    { ttl: '1h', inputTokens: 40 },
    { ttl: '5m', inputTokens: 60 },
  ],
}
const canonicalUsage = {
  input: { total: 212, uncached: 12, cacheRead: 100, cacheWrite: 100, cacheWrite1h: 40 },
  output: { total: 30, reasoning: undefined },
}

/** Reasoning (signed), text, then a tool call with its input in two pieces. */
const toolTurn: Array<[string, unknown]> = [
  ['messageStart', { role: 'assistant', p: 'abc' }],
  ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Think ' } } }],
  ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'hard.' } } }],
  [
    'contentBlockDelta',
    { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'c2ln' } } },
  ],
  ['contentBlockStop', { contentBlockIndex: 0 }],
  ['contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Héllo ✓' } }],
  ['contentBlockStop', { contentBlockIndex: 1 }],
  [
    'contentBlockStart',
    { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather' } } },
  ],
  ['contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"city":' } } }],
  ['contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '"Paris"}' } } }],
  ['contentBlockStop', { contentBlockIndex: 2 }],
  ['messageStop', { stopReason: 'tool_use' }],
  ['metadata', { usage, metrics: { latencyMs: 321 } }],
]

const toolTurnEvents = [
  { type: 'message-start', id: 'conv-1', model: 'amazon.nova-pro-v1:0' },
  { type: 'reasoning-start', index: 0 },
  { type: 'reasoning-delta', index: 0, delta: 'Think ' },
  { type: 'reasoning-delta', index: 0, delta: 'hard.' },
  { type: 'reasoning-end', index: 0, signature: { protocol: 'converse', value: 'c2ln' } },
  { type: 'text-start', index: 1 },
  { type: 'text-delta', index: 1, delta: 'Héllo ✓' },
  { type: 'text-end', index: 1 },
  { type: 'tool-call-start', index: 2, id: 'tooluse_1', name: 'get_weather' },
  { type: 'tool-call-delta', index: 2, argumentsDelta: '{"city":' },
  { type: 'tool-call-delta', index: 2, argumentsDelta: '"Paris"}' },
  { type: 'tool-call-end', index: 2 },
  { type: 'usage', usage: canonicalUsage },
  {
    type: 'finish',
    finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    usage: canonicalUsage,
  },
]

describe('ConverseStream decoding', () => {
  it('reads reasoning with its signature, text and a streamed tool call, holding the finish for the usage', () => {
    expect(decodeFrames(toolTurn)).toEqual(toolTurnEvents)
  })

  it('gives the same events at every split of the byte stream', async () => {
    const text = sse(toolTurn)
    for (const chunks of everySplit(text)) {
      expect(plain(await decodeSseChunks(chunks, decoder()))).toEqual(toolTurnEvents)
    }
  })

  it('gives the same events however the stream is cut into chunks (fast-check)', async () => {
    const bytes = new TextEncoder().encode(sse(toolTurn))
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }),
        async (cuts) => {
          const offsets = [0, ...cuts.sort((a, b) => a - b), bytes.length]
          const chunks = offsets.slice(1).map((end, index) => bytes.slice(offsets[index], end))
          expect(plain(await decodeSseChunks(chunks, decoder()))).toEqual(toolTurnEvents)
        },
      ),
      { numRuns: 150 },
    )
  })

  it('holds redacted reasoning until its block ends, tagged as Converse’s', () => {
    const events = decodeFrames([
      ['messageStart', { role: 'assistant' }],
      [
        'contentBlockDelta',
        { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: 'AAA' } } },
      ],
      [
        'contentBlockDelta',
        { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: 'BBB' } } },
      ],
      ['contentBlockStop', { contentBlockIndex: 0 }],
      ['contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Done.' } }],
      ['contentBlockStop', { contentBlockIndex: 1 }],
      ['messageStop', { stopReason: 'end_turn' }],
      ['metadata', { usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 } }],
    ])
    expect(events.slice(1, 6)).toEqual([
      { type: 'reasoning-start', index: 0, redacted: { protocol: 'converse', value: 'AAABBB' } },
      { type: 'reasoning-end', index: 0 },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: 'Done.' },
      { type: 'text-end', index: 1 },
    ])
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage: { input: { total: 3 }, output: { total: 4 } },
    })
  })

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool-calls'],
    ['guardrail_intervened', 'content-filter'],
    ['content_filtered', 'content-filter'],
    ['malformed_model_output', 'other'],
  ])('maps the stop reason %s to %s', (raw, unified) => {
    const events = decodeFrames([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'x' } }],
      ['messageStop', { stopReason: raw }],
      ['metadata', { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }],
    ])
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified, raw } })
  })

  it('finishes with the usage known when the stream ends after messageStop without metadata', () => {
    const events = decodeFrames([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'x' } }],
      ['messageStop', { stopReason: 'end_turn' }],
    ])
    expect(events.at(-2)).toEqual({ type: 'text-end', index: 0 })
    expect(events.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage: { input: {}, output: {} },
    })
  })

  it('ends a stream cut before messageStop in an error, never in an invented finish', () => {
    const events = decodeFrames([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'x' } }],
    ])
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'upstream_error', status: 502 })
    expect(events.some((event) => (event as { type: string }).type === 'finish')).toBe(false)
  })

  it.each([
    ['throttlingException', 'rate_limited', 429],
    ['modelStreamErrorException', 'upstream_error', 424],
    ['modelTimeoutException', 'upstream_error', 408],
    ['serviceUnavailableException', 'unavailable', 503],
    ['internalServerException', 'upstream_error', 500],
    ['validationException', 'upstream_error', 400],
  ])('ends the stream on %s with its status', (event, code, status) => {
    const events = decodeFrames([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'x' } }],
      [event, { message: 'Too many requests, please wait.' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'ignored' } }],
    ])
    expect(events.at(-1)).toEqual({
      type: 'error',
      code,
      status,
      message: 'Too many requests, please wait.',
    })
    expect(events.filter((item) => (item as { type: string }).type === 'error')).toHaveLength(1)
  })

  it('refuses an event that is not JSON', () => {
    const decoding = decoder()
    const events = plain([
      ...decoding.push({ type: 'event', event: 'contentBlockDelta', data: '{not json' }),
      ...decoding.end(),
    ])
    expect(events).toEqual([
      {
        type: 'error',
        code: 'upstream_error',
        status: 502,
        message: 'The upstream sent a stream event that is not JSON.',
      },
    ])
  })

  it('numbers blocks without gaps when a block starts with no stop for the one before', () => {
    const events = decodeFrames([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'a' } }],
      [
        'contentBlockStart',
        { contentBlockIndex: 1, start: { toolUse: { toolUseId: 't1', name: 'f' } } },
      ],
      ['contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '' } } }],
      [
        'contentBlockStart',
        { contentBlockIndex: 2, start: { toolUse: { toolUseId: 't2', name: 'g' } } },
      ],
      ['messageStop', { stopReason: 'tool_use' }],
      ['metadata', { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }],
    ])
    expect(events.slice(1, 8)).toEqual([
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'a' },
      { type: 'text-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 't1', name: 'f' },
      { type: 'tool-call-end', index: 1 },
      { type: 'tool-call-start', index: 2, id: 't2', name: 'g' },
      { type: 'tool-call-end', index: 2 },
    ])
  })
})

describe('ConverseStream decoding of arbitrary input', () => {
  const eventNames = [
    'messageStart',
    'contentBlockStart',
    'contentBlockDelta',
    'contentBlockStop',
    'messageStop',
    'metadata',
    'throttlingException',
    'somethingNew',
  ]

  it('never throws, keeps blocks from interleaving, and ends in exactly one finish or error (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            event: fc.constantFrom(...eventNames),
            data: fc.oneof(
              fc.jsonValue().map((value) => JSON.stringify(value)),
              fc
                .record({
                  contentBlockIndex: fc.integer({ min: 0, max: 3 }),
                  delta: fc.oneof(
                    fc.record({ text: fc.string() }),
                    fc.record({ toolUse: fc.record({ input: fc.string() }) }),
                    fc.record({
                      reasoningContent: fc.oneof(
                        fc.record({ text: fc.string() }),
                        fc.record({ signature: fc.string() }),
                        fc.record({ redactedContent: fc.base64String() }),
                      ),
                    }),
                  ),
                  start: fc.record({
                    toolUse: fc.record({ toolUseId: fc.string(), name: fc.string() }),
                  }),
                  stopReason: fc.constantFrom('end_turn', 'tool_use', 'max_tokens'),
                  usage: fc.record({ inputTokens: fc.nat(), outputTokens: fc.nat() }),
                })
                .map((value) => JSON.stringify(value)),
            ),
          }),
          { maxLength: 30 },
        ),
        (messages) => {
          const decoding = decoder()
          const events = [
            ...messages.flatMap((message) => decoding.push({ type: 'event', ...message })),
            ...decoding.end(),
          ]
          const terminal = events.filter(
            (event) => event.type === 'finish' || event.type === 'error',
          )
          expect(terminal).toHaveLength(1)
          expect(events.at(-1)).toBe(terminal[0])
          let open: number | undefined
          for (const event of events) {
            if (event.type.endsWith('-start') && event.type !== 'message-start') {
              expect(open).toBeUndefined()
              open = (event as { index: number }).index
            } else if (event.type.endsWith('-end')) {
              expect((event as { index: number }).index).toBe(open)
              open = undefined
            }
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
