import * as z from 'zod/mini'
import {
  createHttpProvider,
  defineUpstreamKind,
  upstreamSpecificationVersion,
  type ChunkSource,
  type UpstreamStreamAnswer,
} from '../../src/index'

/**
 * A test upstream kind of the OpenAI family whose upstream frames its stream as length-prefixed
 * JSON (a 4-byte big-endian length, then that many bytes of one chat chunk; a zero length ends
 * it), as a binary event stream does, and answers errors as `{ "message" }`.
 */
export const framedKind = defineUpstreamKind({
  specificationVersion: upstreamSpecificationVersion,
  name: 'framed',
  protocols: ['openai'],
  schema: () =>
    z.strictObject({
      provider: z.literal('framed'),
      id: z.optional(z.string()),
      baseUrl: z.url(),
      token: z.string().check(z.minLength(8, 'the token has at least 8 characters')),
    }),
  create: (settings, context) =>
    createHttpProvider({
      id: context.id,
      protocol: 'openai',
      baseUrl: settings.baseUrl,
      fetch: context.fetch,
      wire: {
        path: () => '/framed/chat',
        credentialHeader: (token) => ['x-framed-token', token],
      },
      apiKey: settings.token,
      readStream: readFramedStream,
      normaliseError: (body) => ({
        error: {
          message:
            typeof body === 'object' && body !== null && 'message' in body
              ? String(body.message)
              : 'The framed upstream failed.',
          type: 'upstream_error',
        },
      }),
    }),
})

/** Frames of `payloads` as the framed upstream sends them, the end frame last. */
export function framed(payloads: readonly unknown[]): Uint8Array {
  const parts = payloads.map((payload) => new TextEncoder().encode(JSON.stringify(payload)))
  const total = parts.reduce((sum, part) => sum + 4 + part.length, 4)
  const bytes = new Uint8Array(total)
  const view = new DataView(bytes.buffer)
  let offset = 0
  for (const part of parts) {
    view.setUint32(offset, part.length)
    bytes.set(part, offset + 4)
    offset += 4 + part.length
  }
  view.setUint32(offset, 0)
  return bytes
}

/** The stream reader: length-prefixed frames in, SSE `data:` events and `[DONE]` out. */
function readFramedStream(answer: UpstreamStreamAnswer): ChunkSource {
  if (answer.headers.get('content-type') !== 'application/x-framed') {
    throw new Error('not a framed stream')
  }
  const body = answer.body!
  const encoder = new TextEncoder()
  let buffer = new Uint8Array(0)
  let ended = false
  return {
    async read() {
      for (;;) {
        if (ended) return { done: true }
        if (buffer.length >= 4) {
          const length = new DataView(buffer.buffer, buffer.byteOffset).getUint32(0)
          if (length === 0) {
            ended = true
            return { done: false, value: encoder.encode('data: [DONE]\n\n') }
          }
          if (buffer.length >= 4 + length) {
            const payload = new TextDecoder().decode(buffer.subarray(4, 4 + length))
            buffer = buffer.slice(4 + length)
            return { done: false, value: encoder.encode(`data: ${payload}\n\n`) }
          }
        }
        const next = await body.read()
        if (next.done) return { done: true }
        const joined = new Uint8Array(buffer.length + next.value.length)
        joined.set(buffer)
        joined.set(next.value, buffer.length)
        buffer = joined
      }
    },
    cancel: (reason) => body.cancel(reason),
  }
}
