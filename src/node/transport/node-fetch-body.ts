import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { constants, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'

/** A request body ready for `node:http`: bytes sent with a `content-length`, or a stream. */
export type OutgoingBody =
  | { kind: 'none' }
  | { kind: 'bytes'; data: string | Uint8Array; length: number; contentType: string | undefined }
  | { kind: 'stream'; data: ReadableStream<Uint8Array>; contentType: string | undefined }

/**
 * Turns a fetch `body` into what `node:http` can send. Strings and bytes, the gateway's own case,
 * cost nothing; rarer types are serialised the way fetch would (with its default content type),
 * through a throwaway `Request` for the ones Node cannot write directly (`FormData`).
 */
export async function toOutgoingBody(body: BodyInit | null | undefined): Promise<OutgoingBody> {
  if (body === undefined || body === null) return { kind: 'none' }
  if (typeof body === 'string') {
    const length = Buffer.byteLength(body)
    return { kind: 'bytes', data: body, length, contentType: 'text/plain;charset=UTF-8' }
  }
  if (body instanceof Uint8Array) return bytes(body, undefined)
  if (body instanceof ArrayBuffer) return bytes(new Uint8Array(body), undefined)
  if (ArrayBuffer.isView(body)) {
    return bytes(new Uint8Array(body.buffer, body.byteOffset, body.byteLength), undefined)
  }
  if (body instanceof URLSearchParams) {
    const text = body.toString()
    return {
      kind: 'bytes',
      data: text,
      length: Buffer.byteLength(text),
      contentType: 'application/x-www-form-urlencoded;charset=UTF-8',
    }
  }
  if (body instanceof ReadableStream) return { kind: 'stream', data: body, contentType: undefined }
  if (body instanceof Blob) {
    return bytes(new Uint8Array(await body.arrayBuffer()), body.type === '' ? undefined : body.type)
  }
  const request = new Request('http://localhost/', { method: 'POST', body })
  const contentType = request.headers.get('content-type') ?? undefined
  return bytes(new Uint8Array(await request.arrayBuffer()), contentType)
}

function bytes(data: Uint8Array, contentType: string | undefined): OutgoingBody {
  return { kind: 'bytes', data, length: data.byteLength, contentType }
}

/** How a response body stream reports back to the exchange that owns the socket. */
export type IncomingBodyHooks = {
  /** The body ended, failed or was cancelled: stop listening to the caller's signal. */
  settle(): void
  /** The reader cancelled the body: drop the connection, since it cannot be reused mid-body. */
  cancel(): void
}

/** A response body stream plus the way to fail it when the caller's signal aborts. */
export type IncomingBody = { stream: ReadableStream<Uint8Array>; fail(reason: unknown): void }

/** Bytes the body stream holds before it pauses the socket: backpressure reaches the upstream. */
const highWaterMarkBytes = 64 * 1024

/**
 * Wraps a Node response in a WHATWG stream without buffering it: each socket read is enqueued as
 * it arrives, the socket pauses once the queue holds `highWaterMarkBytes` and resumes when the
 * reader pulls. A gzip, deflate or brotli body is decoded, as fetch does. A connection that ends
 * before the body does errors the stream with fetch's `TypeError: terminated`.
 */
export function toIncomingBody(incoming: IncomingMessage, hooks: IncomingBodyHooks): IncomingBody {
  const source = decode(incoming)
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let finished = false
  const finish = (): boolean => {
    if (finished) return false
    finished = true
    hooks.settle()
    return true
  }
  const fail = (reason: unknown) => {
    if (!finish()) return
    controller.error(reason)
    source.destroy()
  }
  const stream = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController
        source.on('data', (chunk: Buffer) => {
          if (finished) return
          // A plain Uint8Array view, as fetch hands out, over the same memory.
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
          if ((controller.desiredSize ?? 0) <= 0) source.pause()
        })
        source.once('end', () => {
          if (finish()) controller.close()
        })
        source.once('error', (cause) => fail(new TypeError('terminated', { cause })))
        source.once('close', () => {
          // 'close' follows every 'end' too: build the error (and its stack) only when needed.
          if (finished) return
          const cause = new Error('The connection closed mid-body.')
          fail(new TypeError('terminated', { cause }))
        })
      },
      pull() {
        source.resume()
      },
      cancel() {
        if (!finish()) return
        source.destroy()
        hooks.cancel()
      },
    },
    { highWaterMark: highWaterMarkBytes, size: (chunk) => chunk.byteLength },
  )
  return { stream, fail }
}

/** The body as sent, or decoded when its single content coding is one fetch decodes. */
export function decode(incoming: IncomingMessage): Readable {
  const coding = incoming.headers['content-encoding']?.trim().toLowerCase()
  // Sync flushing, as undici does, so a compressed stream's events are not held back.
  const zlibFlush = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH }
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? createGunzip(zlibFlush)
      : coding === 'deflate'
        ? createInflate(zlibFlush)
        : coding === 'br'
          ? createBrotliDecompress({
              flush: constants.BROTLI_OPERATION_FLUSH,
              finishFlush: constants.BROTLI_OPERATION_FLUSH,
            })
          : undefined
  if (decoder === undefined) return incoming
  incoming.once('error', (error) => decoder.destroy(error))
  incoming.once('close', () => {
    if (!incoming.complete) decoder.destroy(new Error('The connection closed mid-body.'))
  })
  return incoming.pipe(decoder)
}

/** A web stream as a Node readable, to send a streamed request body (chunked). */
export function toNodeReadable(stream: ReadableStream<Uint8Array>): Readable {
  return Readable.fromWeb(stream as Parameters<typeof Readable.fromWeb>[0])
}
