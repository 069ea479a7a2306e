type Json = Record<string, unknown>

/** Google's canonical error statuses as Anthropic error types. */
const anthropicTypes: ReadonlyMap<string, string> = new Map(
  Object.entries({
    INVALID_ARGUMENT: 'invalid_request_error',
    FAILED_PRECONDITION: 'invalid_request_error',
    OUT_OF_RANGE: 'invalid_request_error',
    UNAUTHENTICATED: 'authentication_error',
    PERMISSION_DENIED: 'permission_error',
    NOT_FOUND: 'not_found_error',
    RESOURCE_EXHAUSTED: 'rate_limit_error',
    UNAVAILABLE: 'overloaded_error',
    DEADLINE_EXCEEDED: 'api_error',
    INTERNAL: 'api_error',
  }),
)

/** The fallback Anthropic error type of an HTTP status. */
function typeOfStatus(status: number): string {
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 404) return 'not_found_error'
  if (status === 429) return 'rate_limit_error'
  if (status === 529) return 'overloaded_error'
  return status >= 500 ? 'api_error' : 'invalid_request_error'
}

/** Google's `{"error":{"code","message","status"}}` (some endpoints wrap it in a list). */
function googleError(body: unknown): Json | undefined {
  const item = Array.isArray(body) ? body[0] : body
  const error = (item as Json | null | undefined)?.['error']
  return typeof error === 'object' && error !== null ? (error as Json) : undefined
}

/** A short description of an answer that was not JSON (Google's front end answers HTML 404s). */
function notJson(text: string, status: number): string {
  const hint = status === 404 ? ' (a wrong region, host or model id?)' : ''
  const title = /<title>([^<]{0,200})<\/title>/i.exec(text)?.[1]
  return `Vertex AI answered ${status} with a non-JSON body${hint}${title === undefined ? '' : `: ${title}`}.`
}

/**
 * Errors of Claude on Vertex in Anthropic's shape: Anthropic's own errors pass as they are;
 * Google's front end (authentication, quota, a model not found in the region) answers
 * `{"error":{"code","message","status"}}`, mapped by its status; an HTML page becomes a short
 * message.
 */
export function vertexAnthropicError(body: unknown, status: number): unknown {
  if (typeof body === 'object' && body !== null && (body as Json)['type'] === 'error') return body
  if (typeof body === 'string') {
    return { type: 'error', error: { type: typeOfStatus(status), message: notJson(body, status) } }
  }
  const error = googleError(body)
  if (error === undefined) return body
  const code = typeof error['status'] === 'string' ? error['status'] : ''
  return {
    type: 'error',
    error: {
      type: anthropicTypes.get(code) ?? typeOfStatus(status),
      message: typeof error['message'] === 'string' ? error['message'] : `Vertex AI: ${code}`,
    },
  }
}

/**
 * Errors of Gemini on Vertex: Google's shape already, as a Gemini client expects; a list-wrapped
 * one is unwrapped, and an HTML page becomes Google's shape with a short message.
 */
export function vertexGeminiError(body: unknown, status: number): unknown {
  if (typeof body === 'string') {
    return {
      error: {
        code: status,
        message: notJson(body, status),
        status: status === 404 ? 'NOT_FOUND' : 'UNKNOWN',
      },
    }
  }
  if (Array.isArray(body) && googleError(body) !== undefined) return body[0]
  return body
}
