import { describe, expect, it } from 'vitest'
import type { FinishReason } from '../../../src/canonical/types'
import {
  canonicalFinishToGemini,
  geminiFinishToCanonical,
} from '../../../src/protocols/gemini/finish-reason'

describe('Gemini finish reasons (checklist §3.2)', () => {
  it.each([
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool-calls'],
    ['MAX_TOKENS', true, 'length'],
    ['SAFETY', false, 'content-filter'],
    ['RECITATION', false, 'content-filter'],
    ['BLOCKLIST', false, 'content-filter'],
    ['PROHIBITED_CONTENT', false, 'content-filter'],
    ['SPII', false, 'content-filter'],
    ['IMAGE_SAFETY', false, 'content-filter'],
    ['IMAGE_PROHIBITED_CONTENT', false, 'content-filter'],
    ['IMAGE_RECITATION', false, 'content-filter'],
    ['LANGUAGE', false, 'content-filter'],
    ['MALFORMED_FUNCTION_CALL', false, 'error'],
    ['UNEXPECTED_TOOL_CALL', true, 'error'],
    ['TOO_MANY_TOOL_CALLS', true, 'error'],
    ['OTHER', false, 'other'],
    ['FINISH_REASON_UNSPECIFIED', false, 'other'],
    ['NO_IMAGE', false, 'other'],
    ['SOMETHING_NEW', false, 'other'],
  ] as const)('FIN: %s (function call seen: %s) → %s', (raw, sawCall, unified) => {
    expect(geminiFinishToCanonical(raw, sawCall)).toEqual({ unified, raw })
  })

  it('keeps no raw value for a finish reason that is not a string', () => {
    expect(geminiFinishToCanonical(null, false)).toEqual({ unified: 'other', raw: undefined })
  })

  it.each<[FinishReason, string]>([
    [{ unified: 'stop' }, 'STOP'],
    [{ unified: 'stop', raw: 'end_turn' }, 'STOP'],
    [{ unified: 'tool-calls', raw: 'tool_use' }, 'STOP'],
    [{ unified: 'tool-calls', raw: 'STOP' }, 'STOP'],
    [{ unified: 'length', raw: 'max_tokens' }, 'MAX_TOKENS'],
    [{ unified: 'content-filter', raw: 'refusal' }, 'SAFETY'],
    [{ unified: 'content-filter', raw: 'RECITATION' }, 'RECITATION'],
    [{ unified: 'content-filter', raw: 'MAX_TOKENS' }, 'SAFETY'],
    [{ unified: 'error' }, 'OTHER'],
    [{ unified: 'error', raw: 'MALFORMED_FUNCTION_CALL' }, 'MALFORMED_FUNCTION_CALL'],
    [{ unified: 'other', raw: 'insufficient_system_resource' }, 'OTHER'],
    [{ unified: 'other', raw: 'FINISH_REASON_UNSPECIFIED' }, 'FINISH_REASON_UNSPECIFIED'],
    [{ unified: 'other', raw: 'SOMETHING_NEW' }, 'OTHER'],
  ])('FIN: %o → %s', (reason, expected) => {
    expect(canonicalFinishToGemini(reason)).toBe(expected)
  })
})
