import type { FinishReason } from '../../canonical/types'
import { isJsonObject } from '../../internal/json'

/** How a Response ended, in its own terms. */
export type ResponsesOutcome =
  | { status: 'completed'; incomplete_details: null }
  | { status: 'incomplete'; incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } }
  | { status: 'failed'; incomplete_details: null; error: { code: string; message: string } }

/**
 * Canonical finish reason → a Response's `status` and `incomplete_details`: stop and
 * tool calls complete; `length` is incomplete for `max_output_tokens`; `content-filter` incomplete
 * for `content_filter`; an upstream `error` finish (Gemini's MALFORMED_FUNCTION_CALL) fails with
 * `server_error`, which clients such as Codex retry.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-status
 */
export function canonicalFinishToResponses(reason: FinishReason): ResponsesOutcome {
  switch (reason.unified) {
    case 'stop':
    case 'tool-calls':
    case 'other':
      return { status: 'completed', incomplete_details: null }
    case 'length':
      return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }
    case 'content-filter':
      return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }
    case 'error':
      return {
        status: 'failed',
        incomplete_details: null,
        error: {
          code: 'server_error',
          message: `The upstream model failed to finish its answer (${reason.raw ?? 'error'}).`,
        },
      }
    default: {
      const unknown: never = reason.unified
      throw new Error(`Unknown finish reason ${String(unknown)}`)
    }
  }
}

/**
 * A Response's `status` and `incomplete_details` → canonical finish reason. A completed response
 * with function calls finished for `tool-calls`, as chat-completions clients expect.
 */
export function responsesStatusToCanonical(
  status: unknown,
  incompleteDetails: unknown,
  sawToolCall: boolean,
): FinishReason {
  if (status === 'incomplete') {
    const reason = isJsonObject(incompleteDetails) ? incompleteDetails['reason'] : undefined
    if (reason === 'content_filter') return { unified: 'content-filter', raw: reason }
    return { unified: 'length', raw: typeof reason === 'string' ? reason : 'incomplete' }
  }
  if (status === 'failed') return { unified: 'error', raw: 'failed' }
  return sawToolCall
    ? { unified: 'tool-calls', raw: 'completed' }
    : { unified: 'stop', raw: 'completed' }
}
