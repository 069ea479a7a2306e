import type { GatewayError } from '../errors'
import { isJsonObject } from '../internal/json'

/**
 * The wait an upstream asked for with its error, in milliseconds: its `retry-after` header in
 * seconds, else its `retry-after-ms` header, else the `retryDelay` of the `RetryInfo` Gemini puts
 * in its error details ("37s"). `undefined` when it said nothing usable (an HTTP-date
 * `retry-after` included: no vendor sends one).
 */
export function upstreamRetryAfterMs(error: GatewayError): number | undefined {
  const seconds = Number(error.headers?.['retry-after'] ?? Number.NaN)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const milliseconds = Number(error.headers?.['retry-after-ms'] ?? Number.NaN)
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds
  if (error.upstream?.protocol !== 'gemini') return undefined
  const delay = geminiRetryDelay(error.upstream.body)
  return delay === undefined ? undefined : delay * 1000
}

/** `error.details[].retryDelay` of a Google error body, in seconds. */
function geminiRetryDelay(body: unknown): number | undefined {
  const error = isJsonObject(body) && isJsonObject(body['error']) ? body['error'] : {}
  const details = Array.isArray(error['details']) ? error['details'] : []
  for (const detail of details) {
    const delay = isJsonObject(detail) ? detail['retryDelay'] : undefined
    const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null
    if (match !== null) return Number(match[1])
  }
  return undefined
}
