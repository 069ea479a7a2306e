import { GatewayError } from '../errors'
import { createChunkDecoder } from '../internal/utf8-chunks'

/**
 * Reads a body as UTF-8 text, refusing it with 413 as soon as it passes `maxBytes`, so an
 * oversized upload is never held whole. A `content-length` over the limit is refused before
 * reading anything.
 */
export async function readRequestText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes)
  return readTextWithLimit(request.body, maxBytes)
}

/** Reads a stream as UTF-8 text, failing with 413 past `maxBytes`. */
export async function readTextWithLimit(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<string> {
  if (body === null) return ''
  const reader = body.getReader()
  const decoder = createChunkDecoder()
  let received = 0
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    received += value.byteLength
    if (received > maxBytes) {
      await reader.cancel().catch(() => undefined)
      throw tooLarge(maxBytes)
    }
    text += decoder.decode(value)
  }
  return text + decoder.end()
}

/** The 413 of a body over `maxBytes`. */
export function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError(
    'payload_too_large',
    `The request body is larger than the gateway's limit of ${maxBytes} bytes.`,
  )
}
