import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ReasoningPart } from '../../../src/canonical/types'
import {
  isGatewayReasoningBlob,
  mintReasoningBlob,
  readReasoningBlob,
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
