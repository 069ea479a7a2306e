import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createSseReader } from '../../src/sse/sse-reader'
import { serializeSse } from '../../src/sse/serialize'
import type { SseMessage } from '../../src/sse/sse-message'
import { byteByByte, everySplit, randomSplit, streamOfChunks } from '../helpers/streams'

const fixture = readFileSync(
  new URL('../fixtures/openai/text-stream-usage.sse', import.meta.url),
  'utf8',
)
const crlfFixture = readFileSync(
  new URL('../fixtures/openai/text-stream-usage-crlf.sse', import.meta.url),
  'utf8',
)

async function readAll(
  chunks: readonly Uint8Array[],
  maxBufferSize = 1 << 20,
): Promise<SseMessage[]> {
  const reader = createSseReader(streamOfChunks(chunks), { maxBufferSize })
  const messages: SseMessage[] = []
  for (let message = await reader.next(); message !== undefined; message = await reader.next()) {
    messages.push(message)
  }
  return messages
}

describe('SSE reader', () => {
  it('reads the fixture into its events and comment', async () => {
    const messages = await readAll([new TextEncoder().encode(fixture)])
    expect(messages).toHaveLength(10)
    expect(messages[2]).toEqual({ type: 'comment', comment: 'keep-alive' })
    expect(messages.at(-1)).toMatchObject({ type: 'event', data: '[DONE]' })
  })

  it('gives the same messages at every byte split, byte by byte and at random splits', async () => {
    const expected = await readAll([new TextEncoder().encode(fixture)])
    for (const chunks of everySplit(fixture)) expect(await readAll(chunks)).toEqual(expected)
    expect(await readAll(byteByByte(fixture))).toEqual(expected)
    for (let seed = 1; seed <= 50; seed += 1)
      expect(await readAll(randomSplit(fixture, seed))).toEqual(expected)
  })

  it('reads CRLF framing at every split, CR and LF split apart included', async () => {
    const expected = await readAll([new TextEncoder().encode(fixture)])
    for (const chunks of everySplit(crlfFixture)) expect(await readAll(chunks)).toEqual(expected)
  })

  it('delivers a last event that lacks its blank line', async () => {
    const messages = await readAll([new TextEncoder().encode('data: {"a":1}\n\ndata: [DONE]')])
    expect(messages.map((message) => (message.type === 'event' ? message.data : ''))).toEqual([
      '{"a":1}',
      '[DONE]',
    ])
  })

  it('hands out the events read before the body failed, then the failure', async () => {
    let step = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        step += 1
        if (step === 1) controller.enqueue(new TextEncoder().encode('data: one\n\ndata: two\n\n'))
        else controller.error(new TypeError('socket reset'))
      },
    })
    const reader = createSseReader(body, { maxBufferSize: 1024 })
    expect(await reader.next()).toMatchObject({ data: 'one' })
    expect(await reader.next()).toMatchObject({ data: 'two' })
    await expect(reader.next()).rejects.toThrow('socket reset')
  })

  it('fails when an unterminated event outgrows the buffer limit', async () => {
    const encoder = new TextEncoder()
    const chunks = [encoder.encode(`data: ${'x'.repeat(800)}`), encoder.encode('x'.repeat(800))]
    await expect(readAll(chunks, 1000)).rejects.toThrow(/larger than the limit/)
  })

  it('stops a pending read when its signal aborts, even if the body ignores cancellation', async () => {
    const controller = new AbortController()
    const body = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) })
    const reader = createSseReader(body, { maxBufferSize: 1024, signal: controller.signal })
    const pending = reader.next()
    controller.abort(new Error('idle'))
    await expect(pending).rejects.toThrow('idle')
  })
})

describe('SSE serializer', () => {
  it('writes event, id and one data line per line of data', () => {
    expect(serializeSse({ type: 'event', event: 'error', id: '7', data: 'a\nb' })).toBe(
      'event: error\nid: 7\ndata: a\ndata: b\n\n',
    )
    expect(serializeSse({ type: 'comment', comment: 'ping' })).toBe(': ping\n\n')
  })

  it('round-trips the fixture byte for byte', async () => {
    const messages = await readAll([new TextEncoder().encode(fixture)])
    expect(messages.map(serializeSse).join('')).toBe(fixture)
  })
})

describe('SSE reader and Google mid-stream errors', () => {
  it('ERR-S-G: hands out a bare JSON error object, pretty-printed or not, as an event', async () => {
    const error = { error: { code: 500, message: 'Internal error', status: 'INTERNAL' } }
    for (const bare of [JSON.stringify(error), JSON.stringify(error, null, 2)]) {
      const text = `data: {"candidates":[]}\n\n${bare}\n`
      for (const chunks of everySplit(text)) {
        const messages = await readAll(chunks)
        expect(
          messages.map((message) => (message.type === 'event' ? JSON.parse(message.data) : null)),
        ).toEqual([{ candidates: [] }, error])
      }
    }
  })
})
