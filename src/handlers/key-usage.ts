import { maskKey } from '../auth/mask-key'
import { readCredential } from '../auth/credentials'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'

/**
 * `GET /v1/usage` (spec §4 rule 2): the calling key's own usage and remaining quota, and nothing
 * about other keys. Besides our own structure it carries the flat fields CC Switch-style clients
 * read: `isValid`, `planName`, `remaining` (-1 when unlimited) and `unit`.
 */
export async function handleKeyUsage(
  runtime: GatewayRuntime,
  scope: RequestScope,
): Promise<Response> {
  const key = scope.key!
  const summary = await runtime.meter.summary(key.id)
  const limit = key.quota?.tokens
  const remaining = limit === undefined ? null : Math.max(0, limit - summary.totalTokens)
  return Response.json({
    object: 'usage',
    key: {
      id: key.id,
      name: key.name ?? key.id,
      masked: maskKey(readCredential(scope.request.headers)),
      groups: key.groups ?? null,
      expires_at: key.expiresAt?.toISOString() ?? null,
    },
    usage: {
      requests: summary.requests,
      input_tokens: summary.inputTokens,
      output_tokens: summary.outputTokens,
      cached_input_tokens: summary.cachedInputTokens,
      total_tokens: summary.totalTokens,
    },
    quota: {
      unit: 'tokens',
      limit: limit ?? null,
      used: summary.totalTokens,
      reserved: summary.reservedTokens,
      remaining,
    },
    isValid: true,
    planName: key.name ?? key.id,
    remaining: remaining ?? -1,
    unit: 'tokens',
  })
}
