import { describe, expect, it } from 'vitest'
import type { ReasoningPart } from '../../../src/canonical/types'
import {
  gatewayThinkingSignature,
  readThinkingBlock,
} from '../../../src/protocols/anthropic/thinking-signature'
import {
  packCarriedThinking,
  unpackCarriedThinking,
} from '../../../src/protocols/gemini/carried-thinking'
import {
  mintReasoningBlob,
  readReasoningBlob,
} from '../../../src/protocols/responses/reasoning-blob'

const signed: ReasoningPart = {
  type: 'reasoning',
  text: 'Weighing the tools.',
  signature: { protocol: 'converse', value: 'EqQBCkYIBRgCKkBsig==' },
}
const redacted: ReasoningPart = {
  type: 'reasoning',
  text: '',
  redacted: { protocol: 'converse', value: 'UkVEQUNURUQ=' },
}

describe('Converse reasoning through the client carriers', () => {
  it('rides in an Anthropic thinking signature and reads back as Converse’s', () => {
    const tag = gatewayThinkingSignature(signed.signature)
    expect(tag).toMatch(/^gw1\.c\./)
    expect(readThinkingBlock(signed.text, tag, 'messages[1].content[0].signature')).toEqual(signed)
  })

  it('refuses an altered Anthropic tag with 400', () => {
    expect(() => readThinkingBlock('x', 'gw1.c.', 'p')).toThrow(/altered or cut/)
  })

  it('rides in a Responses encrypted_content blob, signed or redacted', () => {
    expect(readReasoningBlob(mintReasoningBlob(signed))).toEqual(signed)
    expect(readReasoningBlob(mintReasoningBlob(redacted))).toEqual(redacted)
  })

  it('rides in a Gemini thoughtSignature, signed and redacted, in order', () => {
    const carrier = packCarriedThinking([signed, redacted])
    expect(carrier).toBeDefined()
    expect(unpackCarriedThinking(carrier!)).toEqual([signed, redacted])
  })
})
