import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ReasoningPart } from '../../../src/canonical/types'
import { GatewayError } from '../../../src/errors'
import { utf8ToBase64Url } from '../../../src/internal/base64'
import {
  maxReasoningCarrierLength,
  reasoningOriginSignature,
} from '../../../src/protocols/openai/reasoning-origin'
import {
  isGatewayReasoningBlob,
  mintReasoningBlob,
  readReasoningBlob,
  readReturnedReasoningBlob,
} from '../../../src/protocols/responses/reasoning-blob'

const signed = fc.record({
  protocol: fc.constantFrom('anthropic' as const, 'gemini' as const, 'openai' as const),
  value: fc.string(),
})

describe('reasoning blobs', () => {
  it('round-trip any reasoning exactly: text, signature and redacted data', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.option(signed, { nil: undefined }),
        fc.option(signed, { nil: undefined }),
        (text, signature, redacted) => {
          const part: ReasoningPart = { type: 'reasoning', text }
          if (signature !== undefined) part.signature = signature
          if (redacted !== undefined) part.redacted = redacted
          const blob = mintReasoningBlob(part)
          expect(blob).toMatch(/^gwr1\.[A-Za-z0-9_-]*$/)
          expect(readReasoningBlob(blob)).toEqual(part)
        },
      ),
    )
  })

  it('refuse anything the gateway did not mint, without throwing', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((rest) => `gwr1.${rest}`),
          fc.anything(),
        ),
        (value) => {
          const part = readReasoningBlob(value)
          if (part !== undefined) expect(readReasoningBlob(mintReasoningBlob(part))).toEqual(part)
        },
      ),
      { numRuns: 2000 },
    )
    expect(readReasoningBlob('gAAAAABpHHyd')).toBeUndefined()
    expect(readReasoningBlob(`gwr1.${btoa('{"t":1}')}`)).toBeUndefined()
    expect(
      readReasoningBlob(
        `gwr1.${btoa('{"t":"x","s":{"protocol":"evil","value":"v"}}').replace(/=+$/, '')}`,
      ),
    ).toBeUndefined()
    expect(isGatewayReasoningBlob('gwr2.abc')).toBe(false)
  })
})

describe('reasoning blobs a client sends back (ADR 0018)', () => {
  const origin = reasoningOriginSignature('reasoning_content', 'deepseek-v4-pro', 'Let me look.')
  const part: ReasoningPart = { type: 'reasoning', text: 'Let me look.', signature: origin }

  it('read back an OpenAI-compatible upstream’s reasoning with its checked origin', () => {
    expect(
      readReturnedReasoningBlob(mintReasoningBlob(part), 'input[1].encrypted_content'),
    ).toEqual(part)
    expect(readReturnedReasoningBlob('gAAAAABpHHyd', 'input[1].encrypted_content')).toBeUndefined()
  })

  it('refuse with 400 a blob whose text no longer matches its origin', () => {
    const forged = mintReasoningBlob({ ...part, text: 'Let me not look.' })!
    expect(() => readReturnedReasoningBlob(forged, 'input[1].encrypted_content')).toThrow(
      expect.objectContaining({ status: 400, param: 'input[1].encrypted_content' }),
    )
  })

  it('are not minted past the bound, and refused past it', () => {
    const long = 'x'.repeat(maxReasoningCarrierLength)
    expect(mintReasoningBlob({ type: 'reasoning', text: long })).toBeUndefined()
    expect(() => readReturnedReasoningBlob(`gwr1.${long}`, 'p')).toThrow(
      expect.objectContaining({ status: 400, message: expect.stringContaining('at most 4194304') }),
    )
  })

  it('never throw anything but a 400 on any value a client may send', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.string().map((rest) => `gwr1.${rest}`),
          fc
            .record({
              t: fc.string(),
              s: fc.option(fc.record({ protocol: fc.constant('openai'), value: fc.string() }), {
                nil: undefined,
              }),
            })
            .map((payload) => `gwr1.${utf8ToBase64Url(JSON.stringify(payload))}`),
          fc.string().map((text) => mintReasoningBlob({ ...part, text })),
        ),
        (value) => {
          try {
            const read = readReturnedReasoningBlob(value, 'p')
            if (read !== undefined) expect(read.type).toBe('reasoning')
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
