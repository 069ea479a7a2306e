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

  it('takes the parsed messages of a read without a promise, the same as next() gives', async () => {
    const expected = await readAll([new TextEncoder().encode(fixture)])
    for (const chunks of everySplit(fixture)) {
      const reader = createSseReader(streamOfChunks(chunks), { maxBufferSize: 1 << 20 })
      expect(reader.take()).toBeUndefined()
      const messages: SseMessage[] = []
      for (;;) {
        const message = reader.take() ?? (await reader.next())
        if (message === undefined) break
        messages.push(message)
        // take() hands out exactly what is buffered, and nothing once it is drained.
        if (!reader.buffered()) expect(reader.take()).toBeUndefined()
      }
      expect(messages).toEqual(expected)
    }
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

describe('SSE reader and bodies that are not event streams', () => {
  /** A body of `total` bytes of `line`s, in 64 KiB chunks, counting what the reader pulled. */
  function garbage(line: string, total: number) {
    const chunk = new TextEncoder().encode(line.repeat(Math.ceil(65_536 / line.length)))
    let pulled = 0
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= total) return controller.close()
        pulled += chunk.byteLength
        controller.enqueue(chunk)
      },
      cancel: () => void (cancelled = true),
    })
    return { body, pulled: () => pulled, cancelled: () => cancelled }
  }

  it('gives up after a few KB of lines that are not SSE, reading one chunk of a 32 MB page', async () => {
    const page = garbage('<div class="cdn-error">Bad gateway</div>\n', 32 * 1024 * 1024)
    const reader = createSseReader(page.body, { maxBufferSize: 1 << 26 })
    await expect(reader.next()).rejects.toThrow(
      'The upstream sent a stream that is not server-sent events.',
    )
    // The first chunk, and the one the stream's queue pulled ahead: 128 KB of 32 MB.
    expect(page.pulled()).toBeLessThanOrEqual(2 * (65_536 + 24))
    await reader.cancel()
    expect(page.cancelled()).toBe(true)
  })

  it('counts stray lines since the last valid event: an event in between starts the count again', async () => {
    const stray = 'not sse\n'.repeat(500) // 4 KB, under the 8 KiB patience
    const text = `${stray}data: {"a":1}\n\n${stray}data: {"a":2}\n\n${stray}`
    const messages = await readAll([new TextEncoder().encode(text)])
    expect(messages.map((message) => (message.type === 'event' ? message.data : ''))).toEqual([
      '{"a":1}',
      '{"a":2}',
    ])
  })

  it('takes a limit of its own, and keeps the events that came before the garbage', async () => {
    const text = `data: {"a":1}\n\n${'<p>\n'.repeat(100)}`
    const reader = createSseReader(streamOfChunks([new TextEncoder().encode(text)]), {
      maxBufferSize: 1 << 20,
      maxStrayChars: 256,
    })
    expect(await reader.next()).toEqual({ type: 'event', data: '{"a":1}' })
    await expect(reader.next()).rejects.toThrow('not server-sent events')
  })

  it('never joins stray lines that cannot open a JSON object, and still finds an error object after them', async () => {
    const error = JSON.stringify(
      { error: { code: 503, message: 'Overloaded', status: 'UNAVAILABLE' } },
      null,
      2,
    )
    const text = `${'} } }\n'.repeat(300)}\ndata: {"a":1}\n\n${error}`
    for (const seed of [1, 2, 3]) {
      const messages = await readAll(randomSplit(text, seed))
      expect(
        messages.map((message) => (message.type === 'event' ? JSON.parse(message.data) : null)),
      ).toEqual([{ a: 1 }, JSON.parse(error)])
    }
  })
})
