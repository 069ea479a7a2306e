import type { Signed } from '../../canonical/types'

/** A part's `thoughtSignature`, when it carries a non-empty one. */
export function partSignature(part: Record<string, unknown>): string | undefined {
  const value = part['thoughtSignature']
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** The canonical `signature` field for a Gemini signature, or nothing to spread. */
export function signedByGemini(signature: string | undefined): { signature?: Signed } {
  return signature === undefined ? {} : { signature: { protocol: 'gemini', value: signature } }
}
