import type { Signed } from '../../canonical/types'

/**
 * Google's documented value for a function call whose thought signature was lost: Gemini 3 skips
 * the signature check for it (TOOL-H-09). It carries nothing, so it is never read as a signature.
 *
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator'

/**
 * A part's `thoughtSignature`, when it carries a non-empty one. Google's skip sentinel carries
 * nothing and reads as none, so it is never folded into a tool-call id and sent around.
 */
export function partSignature(part: Record<string, unknown>): string | undefined {
  const value = part['thoughtSignature']
  return typeof value === 'string' && value !== '' && value !== SKIP_THOUGHT_SIGNATURE
    ? value
    : undefined
}

/** The canonical `signature` field for a Gemini signature, or nothing to spread. */
export function signedByGemini(signature: string | undefined): { signature?: Signed } {
  return signature === undefined ? {} : { signature: { protocol: 'gemini', value: signature } }
}
