import type { KeyRecord } from '../auth/key-store'
import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import type { Reservation } from './usage-meter'

/**
 * Asks the meter to admit a request before any upstream call. A key whose quota is used up gets
 * 429 `insufficient_quota` here, so an exhausted key never costs an upstream call.
 */
export async function admit(
  runtime: GatewayRuntime,
  scope: RequestScope,
  key: KeyRecord,
  request: { estimatedTokens: number },
): Promise<Reservation> {
  const result = await runtime.meter.reserve({
    requestId: scope.requestId,
    keyId: key.id,
    quotaTokens: key.quota?.tokens,
    estimatedTokens: request.estimatedTokens,
  })
  if (result.granted) return result.reservation
  if (result.reason === 'rate_limited') {
    throw new GatewayError('rate_limited', 'This API key is over its rate limit.', {
      headers:
        result.retryAfterSeconds === undefined
          ? undefined
          : { 'retry-after': String(result.retryAfterSeconds) },
    })
  }
  throw new GatewayError(
    'quota_exceeded',
    'This API key has used up its token quota. See GET /v1/usage.',
  )
}
