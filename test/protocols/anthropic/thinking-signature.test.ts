import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { GatewayError } from '../../../src/errors'
import {
  gatewayThinkingSignature,
  readThinkingBlock,
} from '../../../src/protocols/anthropic/thinking-signature'
import {
  maxReasoningCarrierLength,
  reasoningOriginSignature,
} from '../../../src/protocols/openai/reasoning-origin'

const field = fc.constantFrom(
  'reasoning_content' as const,
  'reasoning' as const,
  'reasoning_details' as const,
)

describe('the gateway’s thinking tag (ADR 0018)', () => {
  it('carries an OpenAI-compatible upstream’s origin and reads back with the same text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string(), field, (text, model, from) => {
        const signature = reasoningOriginSignature(from, model, text)
        const tag = gatewayThinkingSignature(signature)
        expect(tag).toMatch(/^gw1\.o\.[A-Za-z0-9_-]+$/)
        expect(readThinkingBlock(text, tag, 'p')).toEqual({ type: 'reasoning', text, signature })
      }),
    )
  })

  it('is gw1.unsigned for reasoning it carries nothing for, read back as unsigned', () => {
    expect(gatewayThinkingSignature()).toBe('gw1.unsigned')
    expect(gatewayThinkingSignature({ protocol: 'gemini', value: 'c2ln' })).toBe('gw1.unsigned')
    expect(readThinkingBlock('t', 'gw1.unsigned', 'p')).toEqual({ type: 'reasoning', text: 't' })
    expect(readThinkingBlock('t', 'EqQBCkgI', 'p')).toEqual({
      type: 'reasoning',
      text: 't',
      signature: { protocol: 'anthropic', value: 'EqQBCkgI' },
    })
  })

  it('refuses with 400 a text or tag that does not read back', () => {
    const tag = gatewayThinkingSignature(
      reasoningOriginSignature('reasoning_content', 'm', 'I think.'),
    )
    for (const [text, signature] of [
      ['I think!', tag],
      ['I think.', tag.slice(0, -3)],
      ['I think.', 'gw1.o.'],
      ['I think.', 'gw1.nope'],
      ['I think.', `gw1.o.${'A'.repeat(maxReasoningCarrierLength)}`],
    ])
      expect(() =>
        readThinkingBlock(text!, signature!, 'messages[1].content[0].signature'),
      ).toThrow(expect.objectContaining({ status: 400, param: 'messages[1].content[0].signature' }))
  })

  it('never throws anything but a 400 on any block a client may send', () => {
    const origin = reasoningOriginSignature('reasoning', 'm', 'x').value
    fc.assert(
      fc.property(
        fc.string(),
        fc.oneof(
          fc.string(),
          fc.string().map((rest) => `gw1.${rest}`),
          fc.string().map((rest) => `gw1.o.${rest}`),
          fc.constant(gatewayThinkingSignature({ protocol: 'openai', value: origin })),
          fc.string().map((json) => gatewayThinkingSignature({ protocol: 'openai', value: json })),
        ),
        (text, signature) => {
          try {
            expect(readThinkingBlock(text, signature, 'p').type).toBe('reasoning')
          } catch (error) {
            expect(error).toBeInstanceOf(GatewayError)
            expect(error).toMatchObject({ status: 400, param: 'p' })
          }
        },
      ),
      { numRuns: 1000 },
    )
  })
})
