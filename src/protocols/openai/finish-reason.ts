import type { FinishReason } from '../../canonical/types'

/**
 * OpenAI `finish_reason` ↔ canonical finish reason.
 *
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 */
export function openAIFinishToCanonical(reason: unknown): FinishReason {
  switch (reason) {
    case 'stop':
      return { unified: 'stop', raw: reason }
    case 'length':
      return { unified: 'length', raw: reason }
    case 'tool_calls':
    case 'function_call':
      return { unified: 'tool-calls', raw: reason }
    case 'content_filter':
      return { unified: 'content-filter', raw: reason }
    default:
      return { unified: 'other', raw: typeof reason === 'string' ? reason : undefined }
  }
}

/** The `finish_reason` an OpenAI client gets. */
export function canonicalFinishToOpenAI(
  reason: FinishReason,
): 'stop' | 'length' | 'tool_calls' | 'content_filter' {
  switch (reason.unified) {
    case 'length':
      return 'length'
    case 'tool-calls':
      return 'tool_calls'
    case 'content-filter':
      return 'content_filter'
    case 'stop':
    case 'error':
    case 'other':
      return 'stop'
    default: {
      const unknown: never = reason.unified
      throw new Error(`Unknown finish reason ${String(unknown)}`)
    }
  }
}
