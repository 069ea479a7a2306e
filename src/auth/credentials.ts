import type { RequestHeaders } from '../http/gateway-request'

/**
 * Reads the caller's API key from any of the three headers the official SDKs send:
 * `Authorization: Bearer` (OpenAI, and the current Anthropic SDK), `x-api-key` (Anthropic, Claude
 * Code), `x-goog-api-key` (Google) and the `?key=` query parameter of Gemini REST calls. Every route
 * accepts every form.
 *
 * @returns the key, or `undefined` when none of the headers carries one
 */
export function readCredential(headers: RequestHeaders, url?: URL): string | undefined {
  const authorization = headers.get('authorization')
  if (authorization !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (match) return match[1]
  }
  const apiKey = headers.get('x-api-key') ?? headers.get('x-goog-api-key')
  if (apiKey !== null && apiKey.trim() !== '') return apiKey.trim()
  // Gemini REST users send `?key=`; it is masked in every log like any other key.
  const queryKey = url?.searchParams.get('key')
  if (queryKey !== null && queryKey !== undefined && queryKey.trim() !== '') return queryKey.trim()
  return undefined
}

/** Request headers that carry client credentials: never forwarded upstream. */
export const credentialHeaders: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-goog-api-key',
  'cookie',
])
