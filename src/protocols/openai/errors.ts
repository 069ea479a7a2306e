import { GatewayError, type GatewayErrorCode } from '../../errors'
import { isJsonObject } from '../../internal/json'

/** OpenAI's `type` and `code` for each gateway error code. */
const openAIErrorNames: Record<GatewayErrorCode, { type: string; code: string | null }> = {
  invalid_request: { type: 'invalid_request_error', code: null },
  authentication: { type: 'invalid_request_error', code: 'invalid_api_key' },
  permission: { type: 'permission_error', code: 'permission_denied' },
  not_found: { type: 'invalid_request_error', code: 'not_found' },
  model_not_found: { type: 'invalid_request_error', code: 'model_not_found' },
  method_not_allowed: { type: 'invalid_request_error', code: 'method_not_allowed' },
  payload_too_large: { type: 'invalid_request_error', code: 'request_too_large' },
  quota_exceeded: { type: 'insufficient_quota', code: 'insufficient_quota' },
  // A money budget: OpenAI's quota type (clients treat it as "do not retry"), its own code.
  budget_exceeded: { type: 'insufficient_quota', code: 'budget_exceeded' },
  rate_limited: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  upstream_error: { type: 'server_error', code: 'upstream_error' },
  upstream_unreachable: { type: 'server_error', code: 'upstream_unreachable' },
  upstream_timeout: { type: 'server_error', code: 'upstream_timeout' },
  overloaded: { type: 'server_error', code: 'overloaded' },
  unavailable: { type: 'server_error', code: 'service_unavailable' },
  internal: { type: 'server_error', code: 'internal_error' },
}

/** The `error` object of an OpenAI error body. */
export type OpenAIErrorObject = {
  message: string
  type: string
  param: string | null
  code: string | null
}

/**
 * The OpenAI error object for a gateway error. An OpenAI-shaped upstream error is passed through
 * as the upstream wrote it.
 *
 * @see https://platform.openai.com/docs/guides/error-codes
 */
export function openAIErrorObject(error: GatewayError): OpenAIErrorObject {
  // The Responses API writes errors in the same shape.
  const sameShape =
    error.upstream?.protocol === 'openai' || error.upstream?.protocol === 'responses'
  const upstreamBody = sameShape ? error.upstream?.body : undefined
  if (isJsonObject(upstreamBody) && isJsonObject(upstreamBody['error'])) {
    const upstream = upstreamBody['error']
    if (typeof upstream['message'] === 'string') {
      return {
        ...upstream,
        message: upstream['message'],
        type: typeof upstream['type'] === 'string' ? upstream['type'] : 'server_error',
        param: typeof upstream['param'] === 'string' ? upstream['param'] : null,
        code: typeof upstream['code'] === 'string' ? upstream['code'] : null,
      }
    }
  }
  const names = openAIErrorNames[error.code]
  return { message: error.message, type: names.type, param: error.param ?? null, code: names.code }
}

/** OpenAI clients get 503 for an overloaded upstream: the status they know. */
export function openAIStatus(error: GatewayError): number {
  return error.code === 'overloaded' && error.status === 529 ? 503 : error.status
}

/** Renders a gateway error as an OpenAI error response. */
export function renderOpenAIError(error: GatewayError): Response {
  return Response.json({ error: openAIErrorObject(error) }, { status: openAIStatus(error) })
}

/**
 * OpenAI's mid-stream error event for chat-completions clients: `event: error` with
 * `data: {"error":{…}}`. The openai SDK throws an `APIError` with this message (it reads `error` in
 * any data payload), after the chunks it has already yielded.
 */
export function openAIStreamErrorFrame(error: GatewayError): string {
  return `event: error\ndata: ${JSON.stringify({ error: openAIErrorObject(error) })}\n\n`
}
