import { GatewayError } from '../../errors'
import { isJsonObject } from '../../internal/json'
import { openAIErrorObject, type OpenAIErrorObject } from '../openai/errors'
import { upstreamRetryAfterMs } from '../../http/retry-after'

/**
 * Upstream messages that mean the prompt does not fit the model's context: Anthropic's "prompt is
 * too long", Gemini's "input token count … exceeds the maximum", OpenAI-compatible servers'
 * "maximum context length".
 */
const contextOverflow =
  /prompt is too long|context[ _-]?(length|window)|maximum context|input token count.*exceeds|too many (input )?tokens/i

/** True when an upstream error says the prompt is longer than the model's context. */
export function isContextOverflow(error: GatewayError): boolean {
  const body = error.upstream?.body
  const detail = isJsonObject(body) && isJsonObject(body['error']) ? body['error'] : {}
  if (detail['code'] === 'context_length_exceeded') return true
  const status = error.upstream?.status ?? error.status
  return (status === 400 || status === 413) && contextOverflow.test(error.message)
}

/** The wait an upstream asked for, in seconds (see `upstreamRetryAfterMs`). */
function retryAfterSeconds(error: GatewayError): number | undefined {
  const milliseconds = upstreamRetryAfterMs(error)
  return milliseconds === undefined ? undefined : milliseconds / 1000
}

/** True for an overloaded upstream: Anthropic's 529, Gemini's `UNAVAILABLE`, any upstream 503. */
function isOverloaded(error: GatewayError): boolean {
  return error.code === 'overloaded' || error.upstream?.status === 503
}

/**
 * The OpenAI error object a Responses client gets, with the codes clients act on:
 *
 * - an OpenAI upstream's own error body, as the upstream wrote it, when it names a code;
 * - `context_length_exceeded` for any upstream's context overflow (Codex compacts on it);
 * - `rate_limit_exceeded`, its message ending "Please try again in Ns." when the upstream said how
 *   long — the wording Codex reads its retry delay from;
 * - `insufficient_quota` for a key whose gateway quota is used up;
 * - `server_is_overloaded` for an overloaded upstream (answered 503, which Codex retries).
 *
 * An OpenAI-style body without a code (OpenAI's own 503, vLLM's errors) gets the code that fits,
 * its message kept.
 *
 * @see https://platform.openai.com/docs/guides/error-codes
 */
export function responsesErrorObject(error: GatewayError): OpenAIErrorObject {
  const passthrough =
    error.upstream?.protocol === 'openai' || error.upstream?.protocol === 'responses'
  const body = error.upstream?.body
  const shaped =
    isJsonObject(body) &&
    isJsonObject(body['error']) &&
    typeof body['error']['message'] === 'string'
  const upstream = passthrough && shaped ? openAIErrorObject(error) : undefined
  if (upstream !== undefined && upstream.code !== null) return upstream
  const message = upstream?.message ?? error.message
  if (isContextOverflow(error)) {
    return {
      message,
      type: 'invalid_request_error',
      param: 'input',
      code: 'context_length_exceeded',
    }
  }
  if (error.code === 'rate_limited') {
    const wait = retryAfterSeconds(error)
    const said =
      wait === undefined || /try again in/i.test(message)
        ? message
        : `${message.replace(/\.?\s*$/, '.')} Please try again in ${wait}s.`
    return { message: said, type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' }
  }
  if (isOverloaded(error))
    return { message, type: 'server_error', param: null, code: 'server_is_overloaded' }
  return upstream ?? openAIErrorObject(error)
}

/** The HTTP status a Responses client gets: overloaded upstreams are 503 (Anthropic says 529). */
export function responsesErrorStatus(error: GatewayError): number {
  if (isOverloaded(error)) return 503
  if (isContextOverflow(error)) return 400
  return error.status
}

/** Renders a gateway error as an OpenAI error response, with the Responses API's codes. */
export function renderResponsesError(error: GatewayError): Response {
  return Response.json(
    { error: responsesErrorObject(error) },
    { status: responsesErrorStatus(error) },
  )
}

/**
 * The `error` of a failed Response (`response.failed`), for a failure after the stream began:
 * the codes above, `server_error` for anything else (Codex retries those).
 */
export function responsesFailure(error: GatewayError): { code: string; message: string } {
  const object = responsesErrorObject(error)
  const known = new Set([
    'context_length_exceeded',
    'rate_limit_exceeded',
    'insufficient_quota',
    'server_is_overloaded',
    'invalid_prompt',
  ])
  return {
    code: object.code !== null && known.has(object.code) ? object.code : 'server_error',
    message: object.message,
  }
}

/** A gateway error for an upstream's `response.failed` or `error` event. */
export function responsesEventError(detail: unknown, fallback: string): GatewayError {
  const object = isJsonObject(detail) ? detail : {}
  const message =
    typeof object['message'] === 'string' && object['message'] !== '' ? object['message'] : fallback
  const code = object['code']
  const gatewayCode =
    code === 'rate_limit_exceeded'
      ? 'rate_limited'
      : code === 'server_is_overloaded'
        ? 'overloaded'
        : 'upstream_error'
  return new GatewayError(gatewayCode, message, {
    status: gatewayCode === 'rate_limited' ? 429 : gatewayCode === 'overloaded' ? 503 : 502,
    upstream: { status: 500, protocol: 'responses', body: { error: object } },
  })
}
