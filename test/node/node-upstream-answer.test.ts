import type { IncomingMessage } from 'node:http'
import { PassThrough } from 'node:stream'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toNodeBody } from '../../src/node/transport/node-upstream-answer'
import { createSseReader } from '../../src/sse/sse-reader'
import type { SseMessage } from '../../src/sse/sse-message'

/** A socket-less stand-in for an upstream's `IncomingMessage`: bytes written to it are the body. */
function fakeIncoming(): PassThrough & IncomingMessage {
  return Object.assign(new PassThrough(), { headers: {} }) as unknown as PassThrough &
    IncomingMessage
}

const hooks = { settle: () => undefined, cancel: () => undefined }
/** Lets the stream deliver what was written to it ('data' may come on a later tick). */
const settle = () => new Promise((resolve) => setImmediate(resolve))

/** An SSE body with multi-byte characters (2-, 3- and 4-byte UTF-8), a comment and a CRLF event. */
const sseText =
  'data: {"content":"héllo"}\n\n' +
  ': keep-alive\n\n' +
  'event: delta\ndata: {"content":"日本語 🚀"}\n\n' +
  'data: {"content":"ümlaut"}\r\n\r\n' +
  'data: [DONE]\n\n'
const sseBytes = Buffer.from(sseText)

/**
 * Feeds `bytes` cut at `cuts` to a body: the pieces of each group are written before the next read,
 * so they queue and are handed out together; returns every SSE message read.
 */
async function readInGroups(
  bytes: Buffer,
  cuts: number[],
  groups: number[],
): Promise<SseMessage[]> {
  const incoming = fakeIncoming()
  const body = toNodeBody(incoming, hooks)
  const reader = createSseReader(body, { maxBufferSize: 1 << 20 })
  const pieces: Buffer[] = []
  let from = 0
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(bytes.subarray(from, cut))
    from = cut
  }
  const messages: SseMessage[] = []
  let next = 0
  for (const size of [...groups, pieces.length]) {
    const end = Math.min(pieces.length, next + Math.max(1, size))
    for (; next < end; next += 1) incoming.write(pieces[next])
    await settle()
    while (reader.buffered()) messages.push((await reader.next())!)
    if (next >= pieces.length) break
  }
  incoming.end()
  for (;;) {
    const message = await reader.next()
    if (message === undefined) break
    messages.push(message)
  }
  return messages
}

describe('toNodeBody', () => {
  it('hands out every chunk queued since the last read as one', async () => {
    const incoming = fakeIncoming()
    const body = toNodeBody(incoming, hooks)
    incoming.write(Buffer.from('data: a\n\n'))
    incoming.write(Buffer.from('data: b\n\n'))
    incoming.write(Buffer.from('data: c\n\n'))
    await settle()
    const first = await body.read()
    expect(first.done).toBe(false)
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe(
      'data: a\n\ndata: b\n\ndata: c\n\n',
    )
    incoming.write(Buffer.from('data: d\n\n'))
    incoming.end()
    const second = await body.read()
    expect(Buffer.from(second.value as Uint8Array).toString()).toBe('data: d\n\n')
    expect((await body.read()).done).toBe(true)
  })

  it('keeps a multi-byte character whole when its bytes are split across queued chunks', async () => {
    const incoming = fakeIncoming()
    const body = toNodeBody(incoming, hooks)
    const rocket = Buffer.from('🚀é')
    for (const byte of rocket) incoming.write(Buffer.from([byte]))
    incoming.end()
    await settle()
    const chunk = await body.read()
    expect(new TextDecoder().decode(chunk.value as Uint8Array)).toBe('🚀é')
    expect((await body.read()).done).toBe(true)
  })

  it('keeps a multi-byte character whole when split between a read and the next', async () => {
    const incoming = fakeIncoming()
    const body = toNodeBody(incoming, hooks)
    const text = 'data: 日本\n\n'
    const bytes = Buffer.from(text)
    const decoder = new TextDecoder()
    let out = ''
    // Cut inside 日 (bytes 6..8): one read before the cut, the rest queued in two pieces.
    incoming.write(bytes.subarray(0, 7))
    await settle()
    out += decoder.decode((await body.read()).value as Uint8Array, { stream: true })
    incoming.write(bytes.subarray(7, 8))
    incoming.write(bytes.subarray(8))
    incoming.end()
    await settle()
    out += decoder.decode((await body.read()).value as Uint8Array, { stream: true })
    expect((await body.read()).done).toBe(true)
    expect(out + decoder.decode()).toBe(text)
  })

  it('reads the same SSE messages at every split of the body into two queued chunks', async () => {
    const whole = await readInGroups(sseBytes, [], [])
    expect(whole).toHaveLength(5)
    for (let cut = 1; cut < sseBytes.length; cut += 1) {
      // Both pieces queued before one read, and each read alone.
      expect(await readInGroups(sseBytes, [cut], [2])).toEqual(whole)
      expect(await readInGroups(sseBytes, [cut], [1])).toEqual(whole)
    }
  })

  it('reads the same SSE messages however the body is cut and however many chunks queue', async () => {
    const whole = await readInGroups(sseBytes, [], [])
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: sseBytes.length - 1 }), { maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 13 }),
        async (cuts, groups) => {
          const sorted = [...cuts].sort((left, right) => left - right)
          expect(await readInGroups(sseBytes, sorted, groups)).toEqual(whole)
        },
      ),
      { numRuns: 150 },
    )
  })
})
