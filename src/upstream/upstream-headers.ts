import type { RequestHeaders } from '../http/gateway-request'
import { CallHeaders } from './call-headers'

/**
 * The headers an upstream call starts from: JSON content type plus the client headers on the
 * allow-list. Credential headers can never be on the list (the config schema refuses them), so
 * the client's key never reaches an upstream.
 */
export function buildUpstreamHeaders(
  client: RequestHeaders,
  allowList: readonly string[],
): CallHeaders {
  const headers = new CallHeaders()
  headers.set('content-type', 'application/json')
  for (const name of allowList) {
    const value = client.get(name)
    if (value !== null) headers.set(name, value)
  }
  return headers
}

/**
 * The headers that carry the gateway's request id upstream, so that an upstream's logs can be
 * matched with the gateway's (`x-request-id` on every answer, `requestId` in events and usage
 * records): `x-client-request-id`, which OpenAI documents for a caller's own id (and Claude Code
 * sends to Anthropic), and `x-request-id`, which OpenAI-compatible servers (vLLM) and proxies
 * (nginx, Envoy) log and echo. The client's own values never replace them: the config refuses
 * these names in `forwardHeaders`.
 */
export const requestIdHeaders: readonly string[] = ['x-client-request-id', 'x-request-id']

/** What OpenAI accepts in `X-Client-Request-Id`: printable ASCII, at most 512 characters. */
const sendableId = /^[\x21-\x7e]{1,512}$/

/**
 * Stamps the gateway's request id on an upstream call's headers. An id from a custom `generateId`
 * that OpenAI would refuse (non-ASCII, over 512 characters) is not sent: correlation is never worth
 * a failed call.
 */
export function setRequestIdHeaders(headers: CallHeaders, requestId: string): void {
  if (!sendableId.test(requestId)) return
  for (const name of requestIdHeaders) headers.set(name, requestId)
}
