import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import type { Readable } from 'node:stream'
import type { ChunkSource, UpstreamAnswer } from '../../upstream/upstream-answer'
import { decode, type IncomingBodyHooks } from './node-fetch-body'

/** Bytes queued before the socket is paused: backpressure reaches the upstream. */
const highWaterMarkBytes = 64 * 1024

/** A chunk source over a Node response body, plus the way to fail it when the call aborts. */
export type NodeBody = ChunkSource & {
  fail(reason: unknown): void
  /** The whole body as text, refused (`tooLarge()`) past `maxBytes`. */
  text(maxBytes: number, tooLarge: () => Error): Promise<string>
}

/**
 * An upstream's Node response as the relay reads it, with no `Response`, `Headers` or web stream:
 * headers read from Node's own record, the body pulled from the socket (decoded when gzip, deflate
 * or brotli, as fetch does) with backpressure, and a JSON body concatenated and decoded once.
 */
export function toUpstreamAnswer(
  incoming: IncomingMessage,
  body: NodeBody | null,
): UpstreamAnswer & { body: NodeBody | null } {
  const status = incoming.statusCode ?? 0
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: nodeHeaders(incoming.headers),
    body,
    ...(body === null ? {} : { text: body.text }),
  }
}

/** Node's header record read by name, as `Headers.get` reads it (repeated values joined). */
function nodeHeaders(headers: IncomingHttpHeaders): { get(name: string): string | null } {
  return {
    get(name) {
      const value = headers[name.toLowerCase()]
      if (value === undefined) return null
      return Array.isArray(value) ? value.join(', ') : value
    },
  }
}

/**
 * The body of a Node response as a chunk source. A connection that ends before the body does
 * fails it with fetch's `TypeError: terminated`, as the WHATWG body would.
 */
export function toNodeBody(incoming: IncomingMessage, hooks: IncomingBodyHooks): NodeBody {
  const source: Readable = decode(incoming)
  const queue: Buffer[] = []
  let queuedBytes = 0
  let ended = false
  let finished = false
  let failure: unknown
  let waiting:
    { resolve(chunk: Buffer | undefined): void; reject(reason: unknown): void } | undefined

  const finish = (): boolean => {
    if (finished) return false
    finished = true
    hooks.settle()
    return true
  }
  const fail = (reason: unknown) => {
    if (!finish()) return
    failure = reason
    source.destroy()
    const waiter = waiting
    waiting = undefined
    waiter?.reject(reason)
  }
  source.on('data', (chunk: Buffer) => {
    if (finished) return
    if (waiting !== undefined) {
      const waiter = waiting
      waiting = undefined
      waiter.resolve(chunk)
      return
    }
    queue.push(chunk)
    queuedBytes += chunk.byteLength
    if (queuedBytes >= highWaterMarkBytes) source.pause()
  })
  source.once('end', () => {
    ended = true
    finish()
    const waiter = waiting
    waiting = undefined
    waiter?.resolve(undefined)
  })
  source.once('error', (cause) => fail(new TypeError('terminated', { cause })))
  source.once('close', () => {
    // 'close' follows every 'end' too: build the error (and its stack) only when needed.
    if (ended || finished) return
    fail(new TypeError('terminated', { cause: new Error('The connection closed mid-body.') }))
  })

  /**
   * The next chunk, or `undefined` at the end. Every chunk queued since the last read goes out as
   * one: an SSE upstream writes each event as its own chunked-encoding piece, and each piece would
   * otherwise travel alone through the decoder, the parser and the relay, with a promise or more
   * at each step. At most 64 KiB plus one chunk are queued, so the copy stays small.
   */
  const nextChunk = (): Promise<Buffer | undefined> | Buffer | undefined => {
    if (queue.length > 0) {
      const chunk = queue.length === 1 ? queue[0]! : Buffer.concat(queue, queuedBytes)
      queue.length = 0
      queuedBytes = 0
      source.resume()
      return chunk
    }
    if (failure !== undefined) return Promise.reject(failure)
    if (ended || finished) return undefined
    source.resume()
    return new Promise((resolve, reject) => (waiting = { resolve, reject }))
  }

  const cancel = async () => {
    if (!finish()) return
    source.destroy()
    hooks.cancel()
  }
  return {
    async read() {
      const chunk = await nextChunk()
      if (chunk === undefined) return { done: true }
      // A plain Uint8Array view, as fetch hands out, over the same memory.
      return {
        done: false,
        value: new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength),
      }
    },
    cancel,
    fail,
    async text(maxBytes, tooLarge) {
      const chunks: Buffer[] = []
      let received = 0
      for (;;) {
        const chunk = await nextChunk()
        if (chunk === undefined) break
        received += chunk.byteLength
        if (received > maxBytes) {
          void cancel()
          throw tooLarge()
        }
        chunks.push(chunk)
      }
      // One decode of the whole body, as `TextDecoder` decodes (a leading BOM is dropped).
      return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
    },
  }
}
