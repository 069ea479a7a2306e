import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SseTranslator } from '../../src/canonical/sse-translator'
import { anthropicPassthroughStream } from '../../src/protocols/anthropic/passthrough-stream'
import { openAIPassthroughStream } from '../../src/protocols/openai/passthrough-stream'
import { plainEvents } from '../../src/sse/plain-events'
import { serializeSse } from '../../src/sse/serialize'
import type { SseMessage } from '../../src/sse/sse-message'
import { createSseReader } from '../../src/sse/sse-reader'
import { byteByByte, everySplit, streamOfChunks } from '../helpers/streams'

const encoder = new TextEncoder()

/** Every message of a body delivered in `chunks`, taken as the relay takes them. */
async function readAll(chunks: readonly Uint8Array[], plainEvents = true, maxBufferSize = 256) {
  const reader = createSseReader(streamOfChunks(chunks), { maxBufferSize, plainEvents })
  const messages: SseMessage[] = []
  try {
    for (;;) {
      const message = reader.take() ?? (await reader.next())
      if (message === undefined) return { messages }
      messages.push(message)
    }
  } catch (error) {
    return { messages, error: (error as Error).message }
  }
}

function stripRaw(messages: readonly SseMessage[]): SseMessage[] {
  return messages.map((message) => {
    if (message.type !== 'event' || message.raw === undefined) return message
    const { raw: _raw, ...parsed } = message
    return parsed
  })
}

/** What a passthrough sends for the messages: frames of every push, then of the end. */
function relayed(translator: SseTranslator, messages: readonly SseMessage[]): string {
  let out = ''
  for (const message of messages) {
    const result = translator.push(message)
    out += result.frames.join('')
    if (result.final !== undefined) return out
  }
  return out + translator.end().frames.join('')
}

/** The parser's reading alone, as before plain events, of the same chunks. */
async function reference(chunks: readonly Uint8Array[]) {
  return readAll(chunks, false)
}

const openAIChunk = (model: string, content: string) =>
  `{"id":"c1","object":"chat.completion.chunk","model":${JSON.stringify(model)},"choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}}}]}`

/** Pieces of event streams, plain and not: the reader must read all of them as the parser does. */
const piece = fc.oneof(
  fc
    .record({
      model: fc.constantFrom('fast', 'gpt-4o', 'fa"st'),
      text: fc.string({ maxLength: 40 }),
    })
    .map(({ model, text }) => `data: ${openAIChunk(model, text)}\n\n`),
  fc.constant(
    'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}\n\n',
  ),
  fc.constant('data: {"error":{"message":"overloaded","type":"server_error"}}\n\n'),
  fc.constant('data: [DONE]\n\n'),
  fc.constant(': keep-alive\n\n'),
  fc.constant('data:{"no":"space"}\n\n'),
  fc.constant('data: \n\n'),
  fc.constant('data: one\ndata: two\n\n'),
  fc.constant('event: \ndata: x\n\n'),
  fc.constant(
    'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":4}}\n\n',
  ),
  fc.constant('event: ping\ndata: {"type":"ping"}\n\n'),
  fc.constant('id: 7\ndata: with id\n\n'),
  fc.constant('data: crlf\r\n\r\n'),
  fc.constant('data:  two spaces\n\n'),
  fc.constant('data: Grüße 中文 🎉\n\n'),
  fc.constant('{"error":{"code":500,\n"message":"stray"}}\n\n'),
  fc.constant('not sse\n\n'),
  fc.constant('\n\n'),
  fc.constant('\u00ef\u00bb\u00bfdata: mis-decoded mark\n\n'),
  fc.constant('data: unterminated'),
  fc.constant(`data: ${'x'.repeat(300)}\n\n`),
  fc.string({ maxLength: 8 }),
)

/** Cut points in a byte array, as sorted offsets. */
const cuts = fc.array(fc.nat(), { maxLength: 6 })

function split(text: string, offsets: readonly number[]): Uint8Array[] {
  const bytes = encoder.encode(text)
  const points = [...new Set(offsets.map((offset) => offset % (bytes.length + 1)))].sort(
    (a, b) => a - b,
  )
  const chunks: Uint8Array[] = []
  let from = 0
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.slice(from, point))
    from = point
  }
  return chunks
}

describe('plain events forwarded as the upstream wrote them', () => {
  it('reads plain events with their wire text, and leaves anything else to the parser', () => {
    expect(plainEvents('data: a\n\nevent: x\ndata: b\n\n', 100)).toEqual([
      { type: 'event', event: undefined, id: undefined, data: 'a', raw: 'data: a\n\n' },
      { type: 'event', event: 'x', id: undefined, data: 'b', raw: 'event: x\ndata: b\n\n' },
    ])
    for (const text of [
      'data: a\n\n: c\n\n',
      'data: a\r\n\r\n',
      'data: a\n',
      'data:a\n\n',
      'data: a\ndata: b\n\n',
      'event: \ndata: b\n\n',
      'id: 1\ndata: b\n\n',
      'data: a\n\n\n',
      '',
    ]) {
      expect(plainEvents(text, 100)).toBeUndefined()
    }
    // Longer than the limit: the parser fails it as before.
    expect(plainEvents('data: 123456\n\n', 5)).toBeUndefined()
  })

  it('reads a stream the same as the parser alone, and relays the same bytes, at any split', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 12 }), cuts, async (pieces, offsets) => {
        const text = pieces.join('')
        const chunks = split(text, offsets)
        const expected = await reference(chunks)
        const actual = await readAll(chunks)
        expect(stripRaw(actual.messages)).toEqual(expected.messages)
        expect(actual.error).toBe(expected.error)
        for (const message of actual.messages) {
          if (message.type === 'event' && message.raw !== undefined) {
            expect(message.raw).toBe(serializeSse(message))
          }
        }
        for (const translator of [
          () => openAIPassthroughStream({ clientWantsUsage: false, callName: 'fast' }),
          () => openAIPassthroughStream({ clientWantsUsage: true, callName: 'gpt-4o' }),
          () => anthropicPassthroughStream('claude'),
        ]) {
          expect(relayed(translator(), actual.messages)).toBe(
            relayed(translator(), expected.messages),
          )
        }
      }),
      { numRuns: 400 },
    )
  })

  it('relays a plain stream byte for byte at every split, the model renamed where it differs', async () => {
    const text =
      `data: ${openAIChunk('gpt-4o', 'Grüße')}\n\n` +
      `data: ${openAIChunk('fast', ' 🎉')}\n\n` +
      'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}\n\n' +
      'data: [DONE]\n\n'
    const expected = relayed(
      openAIPassthroughStream({ clientWantsUsage: true, callName: 'fast' }),
      (await readAll(byteByByte(text), false, 1 << 16)).messages,
    )
    expect(expected).toContain('"model":"fast","choices":[{"index":0,"delta":{"content":"Grüße"}')
    for (const chunks of everySplit(text)) {
      const { messages } = await readAll(chunks, true, 1 << 16)
      const translator = openAIPassthroughStream({ clientWantsUsage: true, callName: 'fast' })
      expect(relayed(translator, messages)).toBe(expected)
    }
    // In one read, every event keeps its wire text.
    const whole = await readAll([encoder.encode(text)], true, 1 << 16)
    expect(whole.messages.every((message) => message.type === 'event' && message.raw)).toBe(true)
  })
})
