import type { FinishReason } from '../../canonical/types'

/**
 * Anthropic `stop_reason` ↔ canonical finish reason.
 *
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 */
export function anthropicStopToCanonical(reason: unknown): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return { unified: 'stop', raw: reason }
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { unified: 'length', raw: reason }
    case 'tool_use':
      return { unified: 'tool-calls', raw: reason }
    case 'refusal':
      return { unified: 'content-filter', raw: reason }
    default:
      return { unified: 'other', raw: typeof reason === 'string' ? reason : undefined }
  }
}

/** The `stop_reason` an Anthropic client gets; `stop_sequence` when a stop sequence matched. */
export function canonicalFinishToAnthropic(
  reason: FinishReason,
  stopSequence: string | undefined,
): 'end_turn' | 'stop_sequence' | 'max_tokens' | 'tool_use' | 'refusal' | 'pause_turn' {
  switch (reason.unified) {
    case 'stop':
      if (stopSequence !== undefined) return 'stop_sequence'
      return reason.raw === 'pause_turn' ? 'pause_turn' : 'end_turn'
    case 'length':
      return 'max_tokens'
    case 'tool-calls':
      return 'tool_use'
    case 'content-filter':
      return 'refusal'
    case 'error':
    case 'other':
      return 'end_turn'
    default: {
      const unknown: never = reason.unified
      throw new Error(`Unknown finish reason ${String(unknown)}`)
    }
  }
}
