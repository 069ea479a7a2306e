/** An error a fake answers with: the vendor's status and body, exactly as the vendor writes it. */
export type FakeError = { status: number; body: object }

/**
 * OpenAI's 400: `{"error":{"message","type":"invalid_request_error","param","code"}}`.
 *
 * @see https://platform.openai.com/docs/guides/error-codes
 */
export function openAIError(message: string, param: string | null, code: string | null): FakeError {
  return {
    status: 400,
    body: { error: { message, type: 'invalid_request_error', param, code } },
  }
}

/**
 * Anthropic's 400: `{"type":"error","error":{"type":"invalid_request_error","message"},
 * "request_id"}`.
 *
 * @see https://docs.anthropic.com/en/api/errors
 */
export function anthropicError(message: string): FakeError {
  return {
    status: 400,
    body: {
      type: 'error',
      error: { type: 'invalid_request_error', message },
      request_id: 'req_011CFakeUpstream',
    },
  }
}

/**
 * Google's 400: `{"error":{"code":400,"message","status":"INVALID_ARGUMENT"}}`.
 *
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting
 */
export function geminiError(message: string): FakeError {
  return { status: 400, body: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } } }
}
