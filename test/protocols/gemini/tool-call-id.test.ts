import { describe, expect, it } from 'vitest'
import {
  decodeGeminiToolCallId,
  encodeGeminiToolCallId,
} from '../../../src/protocols/gemini/tool-call-id'

const anthropicIdPattern = /^[a-zA-Z0-9_-]+$/

describe('Gemini tool-call ids (TOOL-H-09, bug 8)', () => {
  it.each([
    ['no padding', 'CiQBjz1r'],
    ['one `=`', 'CiQBjz+/x1o='],
    ['two `=`', 'CiQBjz/+xw=='],
    ['a long signature', `${'Ab+/'.repeat(300)}Zw==`],
  ])('round-trips a base64 signature with %s, byte for byte', (_label, signature) => {
    const id = encodeGeminiToolCallId(signature, 'call_1')
    expect(id).toMatch(anthropicIdPattern)
    expect(id.startsWith('gsig_')).toBe(true)
    expect(decodeGeminiToolCallId(id)).toEqual({ signature, id: 'call_1' })
  })

  it('writes the compact form as documented', () => {
    expect(encodeGeminiToolCallId('CiQB+/x=', 'call_1')).toBe('gsig_7_CiQB-_x_call_1')
  })

  it.each([
    ['base64 without its padding', 'CiQBjz+/x1o'],
    ['base64url text', 'CiQB-_x1'],
    ['Google’s documented bypass value', 'skip_thought_signature_validator'],
    ['non-ASCII text', 'sïgnätür€ 🙂'],
  ])('round-trips %s exactly, through the UTF-8 form', (_label, signature) => {
    const id = encodeGeminiToolCallId(signature, 'fc-9')
    expect(id).toMatch(anthropicIdPattern)
    expect(id.startsWith('gsigx_')).toBe(true)
    expect(decodeGeminiToolCallId(id)).toEqual({ signature, id: 'fc-9' })
  })

  it('keeps fallback ids that contain `_`, `-` or a length-like prefix', () => {
    for (const fallback of ['a_b-c', '12_x', '_', 'gsig_3_abc']) {
      const id = encodeGeminiToolCallId('Zm9v', fallback)
      expect(decodeGeminiToolCallId(id)).toEqual({ signature: 'Zm9v', id: fallback })
    }
  })

  it('returns the fallback alone when there is no signature', () => {
    expect(encodeGeminiToolCallId(undefined, 'call_1')).toBe('call_1')
    expect(encodeGeminiToolCallId('', 'call_1')).toBe('call_1')
  })

  it('decodes any other id to itself, without a signature', () => {
    for (const id of [
      'call_abc',
      'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      'gsig_',
      'gsig_x_abc',
      'gsig_5_abc',
      'gsig_4_abcd',
      'gsig_4_abcdXcall',
      'gsig_1_a_b',
      'gsig_4_ab*d_c',
      'gsigx_2_%%_c',
    ]) {
      expect(decodeGeminiToolCallId(id)).toEqual({ id })
    }
  })
})
