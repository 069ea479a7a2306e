import { GatewayError, type GatewayErrorCode } from '../../errors'
import { isJsonObject } from '../../internal/json'

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
  // Anthropic's error body has a type and no code: the message names the budget.
  budget_exceeded: 'rate_limit_error',
  rate_limited: 'rate_limit_error',
  upstream_error: 'api_error',
  upstream_unreachable: 'api_error',
  upstream_timeout: 'timeout_error',
  overloaded: 'overloaded_error',
  // Anthropic has no type of its own for a 503: its SDK reads the status (InternalServerError).
  unavailable: 'api_error',
  internal: 'api_error',
}

/**
 * The HTTP status Anthropic gives each error `type`. A Map, not an object, so that
 * an upstream type such as `constructor` cannot hit a prototype member.
 */
const anthropicErrorStatus = new Map<string, number>([
  ['invalid_request_error', 400],
  ['authentication_error', 401],
  ['billing_error', 402],
  ['permission_error', 403],
  ['not_found_error', 404],
  ['request_too_large', 413],
  ['rate_limit_error', 429],
  ['api_error', 500],
  ['timeout_error', 504],
  ['overloaded_error', 529],
])

/**
 * Anthropic's error `type` for a gateway error, such as `overloaded_error`.
 *
 * @see https://docs.anthropic.com/en/api/errors
 */
export function anthropicErrorType(error: GatewayError): string {
  // An upstream of another family that refused the request itself (a 400, a content filter's
  // refusal) answers what the client must change: the type Anthropic gives that status.
  if (error.code === 'upstream_error' && error.upstream?.status === error.status) {
    const type = requestErrorTypes.get(error.status)
    if (type !== undefined) return type
  }
  return anthropicErrorTypes[error.code]
}

/** Anthropic's types for the statuses of a refused request. */
const requestErrorTypes = new Map<number, string>([
  [400, 'invalid_request_error'],
  [404, 'not_found_error'],
  [413, 'request_too_large'],
])

/**
 * Renders a gateway error in Anthropic's shape, `{"type":"error","error":{"type","message"}}`.
 *
 * @see https://docs.anthropic.com/en/api/errors
 */
export function renderAnthropicError(error: GatewayError, requestId: string): Response {
  return Response.json(anthropicErrorBody(error, requestId), { status: error.status })
}

/** The body of an Anthropic error answer (its status is the error's own). */
export function anthropicErrorBody(error: GatewayError, requestId: string) {
  // An Anthropic upstream's own error body reaches an Anthropic client as it was.
  const upstream = error.upstream?.protocol === 'anthropic' ? error.upstream.body : undefined
  const type =
    isJsonObject(upstream) &&
    isJsonObject(upstream['error']) &&
    typeof upstream['error']['type'] === 'string'
      ? upstream['error']['type']
      : anthropicErrorType(error)
  return { type: 'error', error: { type, message: error.message }, request_id: requestId }
}

/**
 * Anthropic's mid-stream error event, `event: error` with `data: {"type":"error","error":{…}}`.
 * The SDK only sees the frame because of its `event:` line, and throws an
 * `APIError` whose `error.type` is the body's type.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#error-events
 */
export function anthropicStreamErrorFrame(error: GatewayError): string {
  const body = { type: 'error', error: { type: anthropicErrorType(error), message: error.message } }
  return `event: error\ndata: ${JSON.stringify(body)}\n\n`
}

/**
 * A gateway error for an Anthropic error body, such as the data of a mid-stream `event: error`.
 * The status is the one Anthropic gives the type as an HTTP error, so that an error arriving before
 * the first byte reaches the client is answered with it; the upstream message is
 * kept.
 *
 * @see https://docs.anthropic.com/en/api/errors
 */
export function anthropicErrorToGateway(body: unknown): GatewayError {
  const error = isJsonObject(body) && isJsonObject(body['error']) ? body['error'] : {}
  const type = typeof error['type'] === 'string' ? error['type'] : undefined
  const message =
    typeof error['message'] === 'string' && error['message'] !== ''
      ? error['message']
      : 'The upstream reported an error in the stream.'
  const status = (type === undefined ? undefined : anthropicErrorStatus.get(type)) ?? 500
  return new GatewayError(gatewayCode(type), message, { status, upstream: { status, body } })
}

function gatewayCode(type: string | undefined): GatewayErrorCode {
  switch (type) {
    case 'overloaded_error':
      return 'overloaded'
    case 'rate_limit_error':
      return 'rate_limited'
    default:
      // Other upstream failures are the upstream's, whatever their type: the client's request
      // was accepted and the stream had begun.
      return 'upstream_error'
  }
}
