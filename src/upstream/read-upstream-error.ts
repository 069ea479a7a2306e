import { GatewayError } from '../errors'
import { isJsonObject, parseJson } from '../internal/json'
import { discard, readUpstreamText } from './read-upstream-answer'
import type { UpstreamProvider } from './provider'
import type { SecretScrubber } from './secret-scrubber'
import type { UpstreamAnswer } from './upstream-answer'

/** Upstream response headers that a client may act on, relayed with the error. */
const relayedErrorHeaders = ['retry-after', 'retry-after-ms'] as const

/** The most of an upstream error body the gateway reads. */
const maxErrorBodyBytes = 256 * 1024

/**
 * Turns an upstream's non-2xx response into a `GatewayError` that keeps its status, its message and
 * its body (so a same-protocol client can get the body verbatim). All three vendors put the message
 * at `error.message`.
 *
 * Some statuses change on the way: an upstream 401 or 403 means the gateway's own upstream
 * credentials were refused, which the caller can neither fix nor should mistake for a problem with
 * their key, so it becomes 502; so does a redirect, which is never followed (it would carry the
 * upstream key elsewhere); Anthropic's 529 stays 529 and is marked `overloaded`. The body is
 * scrubbed of the upstream's secrets first (some servers quote the key they refused), then mapped
 * to the family's error shape by the provider's `normaliseError` when it has one (an upstream
 * whose errors are `{message}` would otherwise reach a same-protocol client in a shape its SDK
 * cannot read).
 */
export async function readUpstreamError(
  response: UpstreamAnswer,
  provider: Pick<UpstreamProvider, 'protocol' | 'normaliseError'>,
  scrub: SecretScrubber,
): Promise<GatewayError> {
  if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
    discard(response.body)
    // Where it pointed is not said: a Location may carry tokens of its own.
    return new GatewayError(
      'upstream_error',
      `The upstream answered with a redirect (HTTP ${response.status}), which the gateway does not follow.`,
      { status: 502, upstream: { status: response.status } },
    )
  }
  let text = ''
  try {
    // Scrubbed before anything reads it: the message, and the body a client may get verbatim.
    text = scrub(await readUpstreamText(response.body, maxErrorBodyBytes))
  } catch {
    // An unreadable error body still leaves the status to report.
  }
  const parsed = parseJson(text)
  const read = parsed.ok ? parsed.value : text === '' ? undefined : text
  const body = normalised(provider, read, response.status)
  const headers: Record<string, string> = {}
  for (const name of relayedErrorHeaders) {
    const value = response.headers.get(name)
    if (value !== null) headers[name] = value
  }
  const upstream = { status: response.status, body, protocol: provider.protocol }
  const message = upstreamMessage(body) ?? `The upstream answered HTTP ${response.status}.`
  if (response.status === 401 || response.status === 403) {
    return new GatewayError(
      'upstream_error',
      `The upstream refused the gateway's credentials (HTTP ${response.status}).`,
      { status: 502, upstream: { status: response.status } },
    )
  }
  if (response.status === 529) return new GatewayError('overloaded', message, { upstream, headers })
  if (response.status === 429)
    return new GatewayError('rate_limited', message, { upstream, headers })
  return new GatewayError('upstream_error', message, { status: response.status, upstream, headers })
}

function upstreamMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.slice(0, 1000)
  if (!isJsonObject(body)) return undefined
  const error = body['error']
  if (isJsonObject(error) && typeof error['message'] === 'string') return error['message']
  if (typeof error === 'string') return error
  if (typeof body['message'] === 'string') return body['message']
  return undefined
}

/** The body in the family's shape; a normaliser that throws leaves none (the gateway's own error). */
function normalised(
  provider: Pick<UpstreamProvider, 'normaliseError'>,
  body: unknown,
  status: number,
): unknown {
  if (provider.normaliseError === undefined) return body
  try {
    return provider.normaliseError(body, status)
  } catch {
    return undefined
  }
}
