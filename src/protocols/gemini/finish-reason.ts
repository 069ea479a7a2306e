import type { FinishReason } from '../../canonical/types'

/**
 * Gemini `finishReason` → canonical finish reason. Gemini says `STOP` even when the turn ended in
 * function calls, and Gemini 3 streams that `STOP` in a later chunk than the call, so the caller
 * passes whether a function call was seen anywhere in the candidate. Malformed or unexpected
 * function calls map to `error`: the turn produced no usable call, and `stop` would hide that from
 * the agent loop.
 *
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */
export function geminiFinishToCanonical(reason: unknown, sawFunctionCall: boolean): FinishReason {
  const raw = typeof reason === 'string' ? reason : undefined
  switch (reason) {
    case 'STOP':
      return { unified: sawFunctionCall ? 'tool-calls' : 'stop', raw }
    case 'MAX_TOKENS':
      return { unified: 'length', raw }
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
    case 'LANGUAGE':
      return { unified: 'content-filter', raw }
    case 'MALFORMED_FUNCTION_CALL':
    case 'UNEXPECTED_TOOL_CALL':
    case 'TOO_MANY_TOOL_CALLS':
      return { unified: 'error', raw }
    default:
      return { unified: 'other', raw }
  }
}

/**
 * The `finishReason` a Gemini client gets. A raw value that Gemini itself sent (an upper-case enum
 * name that maps back to the same unified reason) is restored, so `RECITATION` or `MAX_TOKENS`
 * survive a Gemini → Gemini round trip through the canonical form; anything else uses the table
 * (tool calls are `STOP` in Gemini).
 *
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */
export function canonicalFinishToGemini(reason: FinishReason): string {
  if (reason.raw !== undefined && /^[A-Z_]+$/.test(reason.raw)) {
    const back = geminiFinishToCanonical(reason.raw, reason.unified === 'tool-calls')
    if (back.unified === reason.unified && back.unified !== 'other') return reason.raw
    if (back.unified === 'other' && reason.unified === 'other' && knownOther.has(reason.raw)) {
      return reason.raw
    }
  }
  switch (reason.unified) {
    case 'stop':
    case 'tool-calls':
      return 'STOP'
    case 'length':
      return 'MAX_TOKENS'
    case 'content-filter':
      return 'SAFETY'
    case 'error':
    case 'other':
      return 'OTHER'
    default: {
      const unknown: never = reason.unified
      throw new Error(`Unknown finish reason ${String(unknown)}`)
    }
  }
}

/** Gemini reasons that map to `other` and are safe to send back to a Gemini client. */
const knownOther = new Set(['OTHER', 'FINISH_REASON_UNSPECIFIED', 'NO_IMAGE', 'IMAGE_OTHER'])
