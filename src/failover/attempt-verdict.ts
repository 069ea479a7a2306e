import { GatewayError } from '../errors'
import { isJsonObject } from '../internal/json'
import { upstreamRetryAfterMs } from '../http/retry-after'
import type { AttemptVerdict } from './upstream-selector'

const neutral: AttemptVerdict = { kind: 'neutral' }
const unanswered: AttemptVerdict = { kind: 'failed', answered: false }
const answeredFailure: AttemptVerdict = { kind: 'failed', answered: true }

/**
 * What a failed attempt says about its upstream's health, from the error it ended with (as
 * `classifyUpstreamFailure` names it):
 * - no answer (unreachable, reset, timeout) → `failed`, not `answered`: the whole upstream rests;
 * - an unusable answer (a 2xx that is not what the protocol sends, a redirect), 408, 409, 429 and
 *   5xx, 529 included → `failed` and `answered`, with the wait it asked for: the upstream model
 *   rests on that upstream, its other models do not;
 * - 401, 403, 402 and a 429 that says the account is out of quota (`insufficient_quota`,
 *   Anthropic's `billing_error`) → `rejected-key`: the credential, not the upstream, is at fault;
 * - any other 4xx (the client's own error), a client that left, the gateway's own failure →
 *   `neutral`.
 */
export function attemptVerdict(failure: unknown): AttemptVerdict {
  if (!GatewayError.isInstance(failure)) return neutral
  const status = failure.upstream?.status
  if (status === undefined) {
    // No answer at all rests the whole upstream; an unusable answer, only the model asked of it.
    if (failure.code === 'upstream_error') return answeredFailure
    return failure.code === 'upstream_unreachable' || failure.code === 'upstream_timeout'
      ? unanswered
      : neutral
  }
  if (status === 401 || status === 403) {
    return { kind: 'rejected-key', status, reason: `refused (HTTP ${status})` }
  }
  if (status === 402 || (status === 429 && isOutOfQuota(failure.upstream?.body))) {
    return { kind: 'rejected-key', status, reason: `out of quota (HTTP ${status})` }
  }
  if (status === 408 || status === 409 || status === 429 || status >= 500 || status < 400) {
    const retryAfterMs = upstreamRetryAfterMs(failure)
    return retryAfterMs === undefined
      ? { kind: 'failed', status, answered: true }
      : { kind: 'failed', status, retryAfterMs, answered: true }
  }
  return neutral
}

/** True for a vendor error body that says the account has no quota or credit left. */
function isOutOfQuota(body: unknown): boolean {
  const error = isJsonObject(body) && isJsonObject(body['error']) ? body['error'] : undefined
  if (error === undefined) return false
  return (
    error['code'] === 'insufficient_quota' ||
    error['type'] === 'insufficient_quota' ||
    error['type'] === 'billing_error'
  )
}
