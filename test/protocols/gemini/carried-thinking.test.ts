import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ReasoningPart } from '../../../src/canonical/types'
import {
  packCarriedThinking,
  unpackCarriedThinking,
} from '../../../src/protocols/gemini/carried-thinking'
import { partSignature } from '../../../src/protocols/gemini/part-signature'
import {
  maxReasoningCarrierLength,
  reasoningOriginSignature,
} from '../../../src/protocols/openai/reasoning-origin'
import { base64ToUtf8, utf8ToBase64 } from '../../../src/internal/base64'

describe('reasoning carried in a thoughtSignature', () => {
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

  it('carries Anthropic’s own thinking and OpenAI-compatible reasoning, nothing else', () => {
    expect(
      packCarriedThinking([
        { type: 'reasoning', text: 'gemini', signature: { protocol: 'gemini', value: 'c2ln' } },
        { type: 'reasoning', text: 'bare' },
      ]),
    ).toBeUndefined()
    const origin = reasoningOriginSignature('reasoning_content', 'deepseek-v4-pro', 'Hmm — 🧠')
    const part: ReasoningPart = { type: 'reasoning', text: 'Hmm — 🧠', signature: origin }
    expect(
      unpackCarriedThinking(packCarriedThinking([part, { type: 'reasoning', text: 'x' }])!),
    ).toEqual([part])
  })

  it('mints no carrier past the bound: the reasoning is then only shown', () => {
    const text = 'x'.repeat(maxReasoningCarrierLength)
    const signature = reasoningOriginSignature('reasoning_content', 'deepseek-v4-pro', text)
    expect(packCarriedThinking([{ type: 'reasoning', text, signature }])).toBeUndefined()
  })

  it('reads Gemini’s own signatures as no carried thinking', () => {
    for (const signature of ['CiQBcsjafE2=', '%%%', 'skip_thought_signature_validator'])
      expect(unpackCarriedThinking(signature)).toBeUndefined()
  })

  it('refuses with 400 a carrier that does not read back: altered, cut, or over the bound', () => {
    const origin = reasoningOriginSignature('reasoning_content', 'deepseek-v4-pro', 'I think.')
    const good = packCarriedThinking([{ type: 'reasoning', text: 'I think.', signature: origin }])!
    const altered = utf8ToBase64(base64ToUtf8(good)!.replace('I think.', 'I thunk.'))
    const oversized = utf8ToBase64(
      `gwthink1:[{"reasoning":"${'x'.repeat(maxReasoningCarrierLength)}","origin":"{}"}]`,
    )
    for (const signature of [
      'Z3d0aGluazE6',
      'Z3d0aGluazE6bm90IGpzb24=',
      good.slice(0, -8),
      altered,
      utf8ToBase64('gwthink1:[]'),
      utf8ToBase64('gwthink1:[{"reasoning":"x"}]'),
      oversized,
    ])
      expect(() =>
        unpackCarriedThinking(signature, 'contents[1].parts[0].thoughtSignature'),
      ).toThrow(
        expect.objectContaining({
          code: 'invalid_request',
          param: 'contents[1].parts[0].thoughtSignature',
        }),
      )
  })

  it('never throws anything but a 400 on any signature a client may send', () => {
    const carrierLike = fc.oneof(
      fc.string(),
      fc.string().map((tail) => `Z3d0aGluazE6${tail}`),
      fc.string({ unit: 'binary' }).map((text) => utf8ToBase64(`gwthink1:${text}`)),
      fc
        .array(
          fc.record({
            reasoning: fc.string(),
            origin: fc.oneof(
              fc.string(),
              fc.constant(reasoningOriginSignature('reasoning', 'm', 'r').value),
            ),
          }),
        )
        .map((blocks) => utf8ToBase64(`gwthink1:${JSON.stringify(blocks)}`)),
    )
    fc.assert(
      fc.property(carrierLike, (signature) => {
        try {
          const parts = unpackCarriedThinking(signature)
          if (parts !== undefined) expect(parts.length).toBeGreaterThan(0)
        } catch (error) {
          expect(error).toMatchObject({ code: 'invalid_request', status: 400 })
        }
      }),
    )
  })
})

describe('partSignature', () => {
  it('reads Google’s skip sentinel as no signature', () => {
    expect(partSignature({ thoughtSignature: 'skip_thought_signature_validator' })).toBeUndefined()
    expect(partSignature({ thoughtSignature: 'c2ln' })).toBe('c2ln')
  })
})
