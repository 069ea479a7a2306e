import type { FinishReason } from '../../canonical/types'

/**
 * Converse `stopReason` → canonical finish reason. A guardrail or content filter is a content
 * filter; a context window exceeded is a length stop, as Anthropic's; a malformed output or tool
 * use is `other`, with the raw value kept for the operator.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 */
export function converseStopToCanonical(reason: unknown): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return { unified: 'stop', raw: reason }
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { unified: 'length', raw: reason }
    case 'tool_use':
      return { unified: 'tool-calls', raw: reason }
    case 'guardrail_intervened':
    case 'content_filtered':
      return { unified: 'content-filter', raw: reason }
    default:
      return { unified: 'other', raw: typeof reason === 'string' ? reason : undefined }
  }
}
