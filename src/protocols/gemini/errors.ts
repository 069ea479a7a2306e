import { GatewayError } from '../../errors'
import { isJsonObject } from '../../internal/json'

/** Google's error body, `{"error":{"code","message","status"}}`. */
export type GeminiErrorBody = {
  error: { code: number; message: string; status: string; details?: unknown[] }
}

/**
 * Google's RPC status name for each HTTP status it uses. A Map, so that no
 * status can hit a prototype member.
 */
const rpcStatus = new Map<number, string>([
  [400, 'INVALID_ARGUMENT'],
  [401, 'UNAUTHENTICATED'],
  [403, 'PERMISSION_DENIED'],
  [404, 'NOT_FOUND'],
  [408, 'DEADLINE_EXCEEDED'],
  [409, 'ABORTED'],
  [429, 'RESOURCE_EXHAUSTED'],
  [499, 'CANCELLED'],
  [500, 'INTERNAL'],
  [501, 'NOT_IMPLEMENTED'],
  [503, 'UNAVAILABLE'],
  [504, 'DEADLINE_EXCEEDED'],
])

/**
 * The HTTP status a Gemini client gets, as Google would answer: Google
 * has no 529 and answers an overloaded or unreachable backend with 503 `UNAVAILABLE`; a request
 * too large for the model is 400 `INVALID_ARGUMENT`, never 413; billing failures (402) are 429
 * `RESOURCE_EXHAUSTED`.
 */
export function geminiStatus(error: GatewayError): number {
  switch (error.status) {
    case 402:
      return 429
    case 413:
      return 400
    case 502:
    case 529:
      return 503
    default:
      return error.status
  }
}

/**
 * Google's error body for a gateway error. A Gemini upstream's own body passes through as it was,
 * `details` (such as `RetryInfo`) included.
 *
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
export function geminiErrorBody(error: GatewayError): GeminiErrorBody {
  const upstream = error.upstream?.protocol === 'gemini' ? error.upstream.body : undefined
  if (isJsonObject(upstream) && isJsonObject(upstream['error'])) {
    const detail = upstream['error']
    if (
      typeof detail['code'] === 'number' &&
      typeof detail['message'] === 'string' &&
      typeof detail['status'] === 'string'
    ) {
      return {
        error: {
          ...detail,
          code: detail['code'],
          message: detail['message'],
          status: detail['status'],
        },
      }
    }
  }
  const code = geminiStatus(error)
  return {
    error: {
      code,
      message: error.message,
      status: rpcStatusOf(code),
      // Google says why in an ErrorInfo; a spent money budget is told apart from a rate limit so.
      ...(error.code === 'budget_exceeded' ? { details: [budgetErrorInfo] } : {}),
    },
  }
}

/** The `google.rpc.ErrorInfo` of a spent money budget. */
const budgetErrorInfo = {
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
  reason: 'BUDGET_EXCEEDED',
  domain: 'model-gateway',
}

/**
 * Renders a gateway error as Google renders API errors: `{"error":{"code","message","status"}}`
 * with the same HTTP status as `code`. The SDK throws `ApiError` with that status and the JSON
 * body as message.
 *
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
export function renderGeminiError(error: GatewayError): Response {
  const body = geminiErrorBody(error)
  return Response.json(body, { status: body.error.code })
}

/**
 * A mid-stream error for a Gemini client: Google's error body as an SSE event,
 * `data: {"error":{…}}\n\n`. `@google/genai` checks every `data:` event it parses for an error
 * object with a code of 400–599 and throws `ApiError` (`got status: <STATUS>. {…}`, `status` the
 * code) on it, however the network splits or joins the bytes. Google itself writes the bare JSON
 * object with no `data:`, which the SDK only recognises when one network read is that object
 * alone: joined to the text before it (an upstream that fails right after its last words, in the
 * same read), the object sits in the SDK's buffer unparsed and the client gets the connection's
 * end ("terminated") instead of the error. Nothing may be written after it.
 *
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 * @see https://github.com/googleapis/js-genai/issues/461
 */
export function geminiStreamErrorFrame(error: GatewayError): string {
  return `data: ${JSON.stringify(geminiErrorBody(error))}\n\n`
}

/**
 * A gateway error for Google's error body, such as a mid-stream `{"error":{…}}` payload. The code
 * (the HTTP status) is kept, as is the body, tagged as Gemini's, so that a Gemini client gets it
 * as Google wrote it.
 *
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
export function geminiErrorToGateway(body: unknown): GatewayError {
  const detail = isJsonObject(body) && isJsonObject(body['error']) ? body['error'] : {}
  const rpc = typeof detail['status'] === 'string' ? detail['status'] : undefined
  const message =
    typeof detail['message'] === 'string' && detail['message'] !== ''
      ? detail['message']
      : 'The upstream reported an error in the stream.'
  const code = detail['code']
  const status =
    typeof code === 'number' && Number.isInteger(code) && code >= 400 && code <= 599
      ? code
      : rpc === 'UNAVAILABLE'
        ? 503
        : 500
  const upstream = { status, body, protocol: 'gemini' } as const
  switch (rpc) {
    case 'RESOURCE_EXHAUSTED':
      return new GatewayError('rate_limited', message, { status, upstream })
    case 'UNAVAILABLE':
      return new GatewayError('overloaded', message, { status: 503, upstream })
    default:
      // Other failures are the upstream's, whatever their status: the request was accepted and
      // the stream had begun.
      return new GatewayError('upstream_error', message, { status, upstream })
  }
}

function rpcStatusOf(code: number): string {
  // Statuses Google never answers with (405, 422…) get the name of their class.
  return rpcStatus.get(code) ?? (code >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT')
}
