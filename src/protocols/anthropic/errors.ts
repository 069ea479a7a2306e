import type { GatewayError, GatewayErrorCode } from '../../errors'

/** Anthropic's error `type` for each gateway error code. */
const anthropicErrorTypes: Record<GatewayErrorCode, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  model_not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  payload_too_large: 'request_too_large',
  quota_exceeded: 'rate_limit_error',
  rate_limited: 'rate_limit_error',
  upstream_error: 'api_error',
  upstream_unreachable: 'api_error',
  upstream_timeout: 'timeout_error',
  overloaded: 'overloaded_error',
  internal: 'api_error',
}

/**
 * Renders a gateway error in Anthropic's shape, `{"type":"error","error":{"type","message"}}`.
 *
 * @see https://docs.anthropic.com/en/api/errors
 */
export function renderAnthropicError(error: GatewayError, requestId: string): Response {
  return Response.json(
    {
      type: 'error',
      error: { type: anthropicErrorTypes[error.code], message: error.message },
      request_id: requestId,
    },
    { status: error.status },
  )
}
