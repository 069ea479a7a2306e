import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ReasoningPart } from '../../../src/canonical/types'
import {
  packCarriedThinking,
  unpackCarriedThinking,
} from '../../../src/protocols/gemini/carried-thinking'
import { partSignature } from '../../../src/protocols/gemini/part-signature'

describe('Anthropic thinking carried in a thoughtSignature', () => {
  it('round-trips text, signature and redacted data byte for byte', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({
              text: fc.string({ unit: 'grapheme' }),
              signature: fc.string({ minLength: 1 }),
            }),
            fc.record({ redacted: fc.string({ minLength: 1 }) }),
          ),
          { minLength: 1, maxLength: 4 },
        ),
        (blocks) => {
          const parts: ReasoningPart[] = blocks.map((block) =>
            'redacted' in block
              ? {
                  type: 'reasoning',
                  text: '',
                  redacted: { protocol: 'anthropic', value: block.redacted },
                }
              : {
                  type: 'reasoning',
                  text: block.text,
                  signature: { protocol: 'anthropic', value: block.signature },
                },
          )
          const packed = packCarriedThinking(parts)!
          expect(packed).toMatch(/^[A-Za-z0-9+/]+={0,2}$/)
          expect(unpackCarriedThinking(packed)).toEqual(parts)
        },
      ),
    )
  })

  it('carries nothing but Anthropic’s own thinking', () => {
    expect(
      packCarriedThinking([
        { type: 'reasoning', text: 'gemini', signature: { protocol: 'gemini', value: 'c2ln' } },
        {
          type: 'reasoning',
          text: 'tagged',
          signature: { protocol: 'openai', value: 'gw1.unsigned' },
        },
        { type: 'reasoning', text: 'bare' },
      ]),
    ).toBeUndefined()
  })

  it('reads Gemini’s own signatures and anything malformed as no carried thinking', () => {
    for (const signature of ['CiQBcsjafE2=', 'Z3d0aGluazE6', 'Z3d0aGluazE6bm90IGpzb24=', '%%%'])
      expect(unpackCarriedThinking(signature)).toBeUndefined()
  })
})

describe('partSignature', () => {
  it('reads Google’s skip sentinel as no signature', () => {
    expect(partSignature({ thoughtSignature: 'skip_thought_signature_validator' })).toBeUndefined()
    expect(partSignature({ thoughtSignature: 'c2ln' })).toBe('c2ln')
  })
})
