import {
  ApiError,
  GoogleGenAI,
  type GenerateContentResponse,
  type GenerateContentResponseUsageMetadata,
} from '@google/genai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { StreamEvent, Usage } from '../../../src/canonical/types'
import { GatewayError } from '../../../src/errors'
import { createGeminiStreamDecoder } from '../../../src/protocols/gemini/stream-decode'
import {
  createGeminiStreamEncoder,
  type GeminiStreamEncoderOptions,
} from '../../../src/protocols/gemini/stream-encode'
import { encodeGeminiToolCallId } from '../../../src/protocols/gemini/tool-call-id'
import { streamOfChunks } from '../../helpers/streams'
import { decodeText, geminiFixtures, idGenerator, readFixture } from './stream-helpers'

const options = { responseId: 'req_gw_0001', modelVersion: 'gemini-2.5-flash' }
const toolSignature = 'XHwpmf2v5ZMlPNZUr0361xQnoK6z/ukjL4ryIR+e5JHFsQvstVY7/B5vk0J+y8g='
const bytes = new TextEncoder()

afterEach(() => {
  vi.restoreAllMocks()
})

function encode(
  events: readonly StreamEvent[],
  extra: Partial<GeminiStreamEncoderOptions> = {},
): string[] {
  const encoder = createGeminiStreamEncoder({ ...options, ...extra })
  return [...events.flatMap((event) => encoder.push(event)), ...encoder.end()]
}

type Chunk = {
  candidates: Array<{
    content: { role: string; parts: Array<Record<string, unknown>> }
    finishReason?: string
    index: number
  }>
  usageMetadata?: Record<string, number>
  modelVersion: string
  responseId: string
}

/**
 * STR-G-OUT-01: every frame is exactly `data: <json>\n\n`, a GenerateContentResponse with
 * candidate 0 of role `model`, `modelVersion` and `responseId`; only the last has `finishReason`
 * and `usageMetadata`.
 */
function expectWellFormed(frames: readonly string[]): Chunk[] {
  const chunks = frames.map((frame) => {
    const match = /^data: (\{.*\})\n\n$/s.exec(frame)
    if (match === null) throw new Error(`Not a data frame: ${JSON.stringify(frame)}`)
    expect(match[1]).not.toContain('\n')
    return JSON.parse(match[1]!) as Chunk
  })
  chunks.forEach((chunk, position) => {
    const isLast = position === chunks.length - 1
    expect(chunk.candidates).toHaveLength(1)
    expect(chunk.candidates[0]).toMatchObject({ content: { role: 'model' }, index: 0 })
    expect(chunk.candidates[0]!.content.parts.length).toBeGreaterThan(0)
    expect(chunk.modelVersion).toBe(options.modelVersion)
    expect(chunk.responseId).toBe(options.responseId)
    expect(chunk.candidates[0]!.finishReason !== undefined).toBe(isLast)
    expect(chunk.usageMetadata !== undefined).toBe(isLast)
  })
  return chunks
}

/** A client of the gateway: the real SDK, reading a body delivered one network read per piece. */
function sdkClient(pieces: readonly string[]): GoogleGenAI {
  return new GoogleGenAI({
    apiKey: 'x',
    httpOptions: {
      baseUrl: 'http://gemini.test',
      fetch: async () =>
        new Response(streamOfChunks(pieces.map((piece) => bytes.encode(piece))), {
          headers: { 'content-type': 'text/event-stream' },
        }),
    },
  })
}

/** Runs the body through `generateContentStream`, collecting what an application reads. */
async function sdkRead(pieces: readonly string[]) {
  const stream = await sdkClient(pieces).models.generateContentStream({
    model: 'gemini-2.5-flash',
    contents: 'hi',
  })
  const chunks: GenerateContentResponse[] = []
  for await (const chunk of stream) chunks.push(chunk)
  const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? [])
  return {
    chunks,
    text: chunks.map((chunk) => chunk.text ?? '').join(''),
    thoughts: parts.flatMap((part) => (part.thought === true ? [part.text] : [])).join(''),
    functionCalls: chunks.flatMap((chunk) => chunk.functionCalls ?? []),
    signatures: parts.flatMap((part) =>
      part.thoughtSignature === undefined ? [] : [part.thoughtSignature],
    ),
    finishReason: chunks.at(-1)?.candidates?.[0]?.finishReason,
    usage: chunks.at(-1)?.usageMetadata,
  }
}

/** The counts of a usageMetadata, without the per-modality details the gateway does not carry. */
function counts(usage: GenerateContentResponseUsageMetadata | undefined) {
  return {
    promptTokenCount: usage?.promptTokenCount,
    candidatesTokenCount: usage?.candidatesTokenCount,
    thoughtsTokenCount: usage?.thoughtsTokenCount,
    cachedContentTokenCount: usage?.cachedContentTokenCount,
    totalTokenCount: usage?.totalTokenCount,
  }
}

/** Splits an SSE fixture into its frames, as separate network reads. */
function framesOf(text: string): string[] {
  return text.split(/(?<=\n\n)/)
}

/** Collects SDK iteration until it throws; returns the text read and the error. */
async function sdkReadUntilError(pieces: readonly string[]) {
  let text = ''
  try {
    const stream = await sdkClient(pieces).models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: 'hi',
    })
    for await (const chunk of stream) text += chunk.text ?? ''
  } catch (error) {
    return { text, error }
  }
  return { text, error: undefined }
}

const text = (index: number, delta: string): StreamEvent[] => [
  { type: 'text-start', index },
  { type: 'text-delta', index, delta },
  { type: 'text-end', index },
]
const start: StreamEvent = { type: 'message-start', id: 'upstream-id', model: 'upstream-model' }
const usage: Usage = {
  input: { total: 100, uncached: 60, cacheRead: 40 },
  output: { total: 30, reasoning: 12 },
}
const finish = (unified: 'stop' | 'tool-calls' | 'length' = 'stop'): StreamEvent => ({
  type: 'finish',
  finishReason: { unified },
  usage,
})

describe('Gemini stream encoder: through the official SDK (STR-G-OUT-01)', () => {
  it('re-encodes a text stream that the SDK reads as the original', async () => {
    const frames = encode(await decodeText(readFixture('text.sse')))
    expectWellFormed(frames)
    const read = await sdkRead(frames)
    const original = await sdkRead(framesOf(readFixture('text.sse')))
    expect(read.text).toBe('Grüße aus 東京 👋🏽 — how can I help?')
    expect(read.text).toBe(original.text)
    expect(read.finishReason).toBe('STOP')
    expect(counts(read.usage)).toEqual(counts(original.usage))
    expect(read.chunks.every((chunk) => chunk.responseId === 'req_gw_0001')).toBe(true)
  })

  it('TOOL-H-09, RESP-03: re-encodes Gemini 3 calls whole, with the signature and the ids', async () => {
    // The SDK's `text` getter warns about function-call parts; expected here.
    vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const frames = encode(await decodeText(readFixture('tool-call.sse')))
    const chunks = expectWellFormed(frames)
    const read = await sdkRead(frames)
    const original = await sdkRead(framesOf(readFixture('tool-call.sse')))
    expect(read.functionCalls).toEqual([
      { name: 'get_weather', args: { location: 'Zürich, CH', unit: 'celsius' }, id: 'gen-1' },
      { name: 'get_time', args: {}, id: 'gen-2' },
    ])
    expect(read.signatures).toEqual([toolSignature])
    expect(read.signatures).toEqual(original.signatures)
    expect(chunks[0]?.candidates[0]?.content.parts).toEqual([
      {
        functionCall: {
          name: 'get_weather',
          args: { location: 'Zürich, CH', unit: 'celsius' },
          id: 'gen-1',
        },
        thoughtSignature: toolSignature,
      },
    ])
    expect(read.finishReason).toBe('STOP')
    expect(counts(read.usage)).toEqual(counts(original.usage))
    expect(counts(read.usage)).toMatchObject({ candidatesTokenCount: 22, thoughtsTokenCount: 74 })
  })

  it('RR-02: re-encodes thought parts, which the SDK text getter skips, and the usage', async () => {
    const frames = encode(await decodeText(readFixture('thinking.sse')))
    expectWellFormed(frames)
    const read = await sdkRead(frames)
    const original = await sdkRead(framesOf(readFixture('thinking.sse')))
    expect(read.text).toBe('9.9 is larger than 9.11.')
    expect(read.text).toBe(original.text)
    expect(read.thoughts).toBe(original.thoughts)
    expect(read.signatures).toEqual(original.signatures)
    expect(counts(read.usage)).toEqual({
      promptTokenCount: 2070,
      candidatesTokenCount: 9,
      thoughtsTokenCount: 45,
      cachedContentTokenCount: 2048,
      totalTokenCount: 2124,
    })
    expect(counts(read.usage)).toEqual(counts(original.usage))
  })

  it.each(geminiFixtures)(
    '%s: decoding the re-encoded stream gives the same blocks',
    async (name) => {
      const blocks = (events: StreamEvent[]) =>
        events.filter((event) => event.type !== 'usage' && event.type !== 'message-start')
      const original = await decodeText(readFixture(name))
      const again = await decodeText(encode(original).join(''))
      expect(blocks(again)).toEqual(blocks(original))
    },
  )

  it('STR-OG-03: the last event keeps the SDK chat history valid', async () => {
    const frames = encode([start, ...text(0, 'Hello'), finish()])
    const chat = sdkClient(frames).chats.create({ model: 'gemini-2.5-flash' })
    let read = ''
    for await (const chunk of await chat.sendMessageStream({ message: 'hi' })) {
      read += chunk.text ?? ''
    }
    expect(read).toBe('Hello')
    expect(chat.getHistory(true)).toEqual([
      { role: 'user', parts: [{ text: 'hi' }] },
      // The SDK records each event's content as it came; none was found invalid.
      { role: 'model', parts: [{ text: 'Hello' }] },
      { role: 'model', parts: [{ text: '' }] },
    ])
  })
})

describe('Gemini stream encoder: events', () => {
  it('writes one event per text or reasoning delta and nothing for block boundaries', () => {
    const frames = encode([
      start,
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, delta: 'why' },
      { type: 'reasoning-delta', index: 0, delta: '' },
      { type: 'reasoning-end', index: 0 },
      { type: 'text-start', index: 1 },
      { type: 'text-delta', index: 1, delta: 'Hi' },
      { type: 'text-delta', index: 1, delta: ' there' },
      { type: 'text-end', index: 1 },
      finish(),
    ])
    expect(expectWellFormed(frames).map((chunk) => chunk.candidates[0]!.content.parts)).toEqual([
      [{ text: 'why', thought: true }],
      [{ text: 'Hi' }],
      [{ text: ' there' }],
      [{ text: '' }],
    ])
    expect(frames[1]).toBe(
      'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],' +
        '"modelVersion":"gemini-2.5-flash","responseId":"req_gw_0001"}\n\n',
    )
  })

  it('STR-AG-01: leaves thoughts out when the client did not ask for them', () => {
    const frames = encode(
      [
        start,
        { type: 'reasoning-start', index: 0 },
        { type: 'reasoning-delta', index: 0, delta: 'why' },
        {
          type: 'reasoning-end',
          index: 0,
          signature: { protocol: 'gemini', value: 'c2ln' },
        },
        ...text(1, 'Hi'),
        finish(),
      ],
      { includeThoughts: false },
    )
    expect(expectWellFormed(frames).map((chunk) => chunk.candidates[0]!.content.parts)).toEqual([
      [{ text: 'Hi' }],
      [{ text: '' }],
    ])
  })

  it('TOOL-H-10: writes only Gemini signatures, on a trailing empty part', () => {
    const reasoning = (signature: StreamEvent & { type: 'reasoning-end' }): StreamEvent[] => [
      { type: 'reasoning-start', index: 0 },
      { type: 'reasoning-delta', index: 0, delta: 'why' },
      signature,
    ]
    const gemini = encode([
      start,
      ...reasoning({
        type: 'reasoning-end',
        index: 0,
        signature: { protocol: 'gemini', value: 'Zz==' },
      }),
      finish(),
    ])
    expect(expectWellFormed(gemini)[1]?.candidates[0]?.content.parts).toEqual([
      { text: '', thoughtSignature: 'Zz==' },
    ])
    const anthropic = encode([
      start,
      ...reasoning({
        type: 'reasoning-end',
        index: 0,
        signature: { protocol: 'anthropic', value: 'EqQBCkgIARABGAIiQL' },
      }),
      finish(),
    ])
    expect(anthropic.join('')).not.toContain('EqQB')
    expect(expectWellFormed(anthropic)).toHaveLength(2)
  })

  it('STR-OG-02, STR-AG-02: buffers argument deltas and writes each call whole at its end', () => {
    const frames = encode([
      start,
      ...text(0, 'Checking.'),
      { type: 'tool-call-start', index: 1, id: 'toolu_01', name: 'get_weather' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city": "Mün' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: 'chen"}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'tool-call-start', index: 2, id: 'call_2', name: 'no_args' },
      { type: 'tool-call-end', index: 2 },
      { type: 'tool-call-start', index: 3, id: 'call_3', name: 'broken' },
      { type: 'tool-call-delta', index: 3, argumentsDelta: '{"a":' },
      { type: 'tool-call-end', index: 3 },
      { type: 'tool-call-start', index: 4, id: 'call_4', name: 'array' },
      { type: 'tool-call-delta', index: 4, argumentsDelta: '[1]' },
      { type: 'tool-call-end', index: 4 },
      finish('tool-calls'),
    ])
    const chunks = expectWellFormed(frames)
    expect(chunks.map((chunk) => chunk.candidates[0]!.content.parts)).toEqual([
      [{ text: 'Checking.' }],
      [{ functionCall: { name: 'get_weather', args: { city: 'München' }, id: 'toolu_01' } }],
      [{ functionCall: { name: 'no_args', args: {}, id: 'call_2' } }],
      // Pinned: arguments that are not a JSON object become `{}`.
      [{ functionCall: { name: 'broken', args: {}, id: 'call_3' } }],
      [{ functionCall: { name: 'array', args: {}, id: 'call_4' } }],
      [{ text: '' }],
    ])
    expect(chunks.at(-1)?.candidates[0]?.finishReason).toBe('STOP')
  })

  it('TOOL-H-09: takes the signature from the id when the call carries none, and strips it from the id', () => {
    const id = encodeGeminiToolCallId('AbC+/w==', 'call_7')
    const frames = encode([
      start,
      { type: 'tool-call-start', index: 0, id, name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0 },
      {
        type: 'tool-call-start',
        index: 1,
        id: 'call_8',
        name: 'g',
        signature: { protocol: 'gemini', value: 'Rk9P' },
      },
      { type: 'tool-call-end', index: 1 },
      {
        type: 'tool-call-start',
        index: 2,
        id: 'call_9',
        name: 'h',
        signature: { protocol: 'openai', value: 'not-for-gemini' },
      },
      { type: 'tool-call-end', index: 2 },
      finish('tool-calls'),
    ])
    expect(expectWellFormed(frames).map((chunk) => chunk.candidates[0]!.content.parts[0])).toEqual([
      { functionCall: { name: 'f', args: {}, id: 'call_7' }, thoughtSignature: 'AbC+/w==' },
      { functionCall: { name: 'g', args: {}, id: 'call_8' }, thoughtSignature: 'Rk9P' },
      { functionCall: { name: 'h', args: {}, id: 'call_9' } },
      { text: '' },
    ])
  })

  it('writes a call that never ended in the last event, whole', () => {
    const frames = encode([
      start,
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"x":1}' },
      finish('tool-calls'),
    ])
    expect(expectWellFormed(frames)).toEqual([
      expect.objectContaining({
        candidates: [
          {
            content: {
              parts: [{ functionCall: { name: 'f', args: { x: 1 }, id: 'call_1' } }],
              role: 'model',
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
      }),
    ])
  })

  it('USE-01: the last event has the usage, totals adding up, optional counts only when positive', () => {
    const [last] = expectWellFormed(encode([start, finish('length')]))
    expect(last).toEqual({
      candidates: [
        { content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 },
      ],
      usageMetadata: {
        promptTokenCount: 100,
        candidatesTokenCount: 18,
        thoughtsTokenCount: 12,
        cachedContentTokenCount: 40,
        totalTokenCount: 130,
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'req_gw_0001',
    })
    const [bare] = expectWellFormed(
      encode([
        { type: 'finish', finishReason: { unified: 'stop' }, usage: { input: {}, output: {} } },
      ]),
    )
    expect(bare?.usageMetadata).toEqual({
      promptTokenCount: 0,
      candidatesTokenCount: 0,
      totalTokenCount: 0,
    })
  })

  it('merges usage events into the finish usage', () => {
    const [last] = expectWellFormed(
      encode([
        { ...start, usage: { input: { total: 7 }, output: {} } },
        { type: 'usage', usage: { input: {}, output: { total: 3 } } },
        { type: 'finish', finishReason: { unified: 'stop' }, usage: { input: {}, output: {} } },
      ]),
    )
    expect(last?.usageMetadata).toEqual({
      promptTokenCount: 7,
      candidatesTokenCount: 3,
      totalTokenCount: 10,
    })
  })

  it.each([
    ['stop', undefined, 'STOP'],
    ['tool-calls', undefined, 'STOP'],
    ['length', undefined, 'MAX_TOKENS'],
    ['content-filter', 'refusal', 'SAFETY'],
    ['content-filter', 'RECITATION', 'RECITATION'],
    ['error', undefined, 'OTHER'],
    ['other', 'end_turn', 'OTHER'],
  ] as const)('FIN: finish %s (raw %s) becomes %s', (unified, raw, expected) => {
    const [last] = expectWellFormed(
      encode([{ type: 'finish', finishReason: { unified, raw }, usage, refusal: 'No.' }]),
    )
    expect(last?.candidates[0]?.finishReason).toBe(expected)
  })

  it('STR-END-03: writes nothing after the finish', () => {
    const encoder = createGeminiStreamEncoder(options)
    expect(encoder.push(finish())).toHaveLength(1)
    expect(encoder.push({ type: 'text-delta', index: 0, delta: 'late' })).toEqual([])
    expect(encoder.push(finish())).toEqual([])
    expect(encoder.end()).toEqual([])
  })
})

describe('Gemini stream encoder: errors (ERR-S-G)', () => {
  const overloaded = new GatewayError('overloaded', 'Overloaded')

  it('writes Google’s error object as a `data:` event, then nothing', () => {
    const encoder = createGeminiStreamEncoder(options)
    const frames = [
      ...encoder.push(start),
      ...encoder.push({ type: 'text-delta', index: 0, delta: 'par' }),
      ...encoder.push({ type: 'error', error: overloaded }),
    ]
    expect(frames.at(-1)).toBe(
      'data: {"error":{"code":503,"message":"Overloaded","status":"UNAVAILABLE"}}\n\n',
    )
    expect(encoder.push({ type: 'text-delta', index: 0, delta: 'late' })).toEqual([])
    expect(encoder.end()).toEqual([])
  })

  it('makes the SDK iteration throw ApiError after the partial text', async () => {
    const frames = encode([start, ...text(0, 'partial'), { type: 'error', error: overloaded }])
    const { text: read, error } = await sdkReadUntilError(frames)
    expect(read).toBe('partial')
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({
      status: 503,
      message:
        'got status: UNAVAILABLE. {"error":{"code":503,"message":"Overloaded","status":"UNAVAILABLE"}}',
    })
  })

  it('passes a Gemini upstream’s own error object through', async () => {
    const body = {
      error: {
        code: 429,
        message: 'Resource has been exhausted (e.g. check quota).',
        status: 'RESOURCE_EXHAUSTED',
      },
    }
    const upstream = new GatewayError('rate_limited', body.error.message, {
      upstream: { status: 429, body, protocol: 'gemini' },
    })
    const frames = encode([start, ...text(0, 'a'), { type: 'error', error: upstream }])
    expect(frames.at(-1)).toBe(`data: ${JSON.stringify(body)}\n\n`)
    const { error } = await sdkReadUntilError(frames)
    expect(error).toMatchObject({ status: 429 })
  })

  it('makes the SDK throw ApiError however the network splits or joins the bytes', async () => {
    const frames = encode([start, ...text(0, 'partial'), { type: 'error', error: overloaded }])
    const body = frames.join('')
    // Text and error in one read (an upstream that fails right after its last words), then every
    // cut of the body into two reads.
    const cuts = Array.from({ length: body.length - 1 }, (_, at) => [
      body.slice(0, at + 1),
      body.slice(at + 1),
    ])
    const splits = [[body], ...cuts]
    for (const pieces of splits) {
      const { text: read, error } = await sdkReadUntilError(pieces)
      expect(read).toBe('partial')
      expect(error).toBeInstanceOf(ApiError)
      expect(error).toMatchObject({ status: 503 })
    }
  })

  it('a bare JSON object, as Google writes it, is missed by the SDK when joined to the text', async () => {
    // Why the gateway writes a `data:` event: the SDK recognises Google's bare object only when
    // one network read is that object alone; joined, it waits in the SDK's buffer unparsed.
    const [textFrame] = encode([start, ...text(0, 'partial')])
    const bare = '{"error":{"code":503,"message":"Overloaded","status":"UNAVAILABLE"}}'
    expect((await sdkReadUntilError([textFrame!, bare])).error).toBeInstanceOf(ApiError)
    const joined = await sdkReadUntilError([`${textFrame!}${bare}`])
    expect(joined.error).not.toBeInstanceOf(ApiError)
  })

  it('writes an error frame when the stream ends without a finish', async () => {
    const frames = encode([start, ...text(0, 'cut')])
    expect(JSON.parse(frames.at(-1)!.slice('data: '.length))).toEqual({
      error: {
        code: 503,
        message: 'The stream ended before the answer finished.',
        status: 'UNAVAILABLE',
      },
    })
    const { text: read, error } = await sdkReadUntilError(frames)
    expect(read).toBe('cut')
    expect(error).toBeInstanceOf(ApiError)
  })
})

describe('Gemini stream codecs: decoder and encoder together', () => {
  it('carries a Gemini upstream error to a Gemini client unchanged', () => {
    const body = {
      error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' },
    }
    const decoder = createGeminiStreamDecoder({ generateId: idGenerator() })
    const [event] = decoder.push({ type: 'event', data: JSON.stringify(body) }).slice(-1)
    expect(encode(event === undefined ? [] : [event])).toEqual([
      `data: ${JSON.stringify(body)}\n\n`,
    ])
  })
})
