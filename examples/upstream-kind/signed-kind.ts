import * as z from 'zod/mini'
import {
  createHttpProvider,
  defineUpstreamKind,
  upstreamSpecificationVersion,
  type PreparedRequest,
} from 'model-gateway'

/**
 * A third-party upstream kind, built on the package's public API only: an OpenAI-compatible
 * upstream behind a gateway of its own that takes no API key but an HMAC signature of each request
 * (as webhook and partner APIs do), and answers errors as `{ "message" }`.
 *
 * A call is signed over its timestamp, method, URL and body:
 *
 *     x-signature-key:       the key id
 *     x-signature-timestamp: the Unix time in seconds
 *     x-signature:           hex(HMAC-SHA256(secret, `${timestamp}\n${method}\n${url}\n${body}`))
 *
 * Config entry: `{ "provider": "signed-openai", "baseUrl": "…", "keyId": "…", "secret": "${SECRET}" }`.
 */
export const signedOpenAIKind = defineUpstreamKind({
  specificationVersion: upstreamSpecificationVersion,
  name: 'signed-openai',
  protocols: ['openai'],
  schema: () =>
    z.strictObject({
      provider: z.literal('signed-openai'),
      id: z.optional(z.string()),
      baseUrl: z.url({ protocol: /^https?$/ }),
      keyId: z.string().check(z.minLength(1)),
      secret: z.string().check(z.minLength(32, 'the signing secret has at least 32 characters')),
    }),
  create: (settings, context) => {
    const sign = signer(settings.keyId, settings.secret, context.now)
    return createHttpProvider({
      id: context.id,
      protocol: 'openai',
      baseUrl: settings.baseUrl,
      fetch: context.fetch,
      // Scrubbed from any error an upstream might quote it in.
      secrets: [settings.secret],
      sign,
      normaliseError: (body, status) => ({
        error: {
          message: messageOf(body) ?? `The signed upstream answered HTTP ${status}.`,
          type: status >= 500 ? 'server_error' : 'invalid_request_error',
        },
      }),
    })
  },
})

/** The text a request's signature covers. */
export function signedText(timestamp: string, request: PreparedRequest): string {
  return `${timestamp}\n${request.method}\n${request.url}\n${request.body}`
}

/** HMAC-SHA256 of `text` with `secret`, as lower-case hex (WebCrypto: every runtime has it). */
export async function hmacHex(secret: string, text: string): Promise<string> {
  const encoder = new TextEncoder()
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(text)))
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('')
}

/** The sign step: applied to the prepared request, the last step before it is sent. */
function signer(keyId: string, secret: string, now: () => number) {
  return async (request: PreparedRequest): Promise<PreparedRequest> => {
    const timestamp = String(Math.floor(now() / 1000))
    request.headers['x-signature-key'] = keyId
    request.headers['x-signature-timestamp'] = timestamp
    request.headers['x-signature'] = await hmacHex(secret, signedText(timestamp, request))
    return request
  }
}

function messageOf(body: unknown): string | undefined {
  if (typeof body === 'string' && body !== '') return body
  if (typeof body !== 'object' || body === null || !('message' in body)) return undefined
  return typeof body.message === 'string' ? body.message : undefined
}
