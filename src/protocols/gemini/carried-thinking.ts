import type { ReasoningPart } from '../../canonical/types'
import { parseJson } from '../../internal/json'

/** Marks a `thoughtSignature` that carries Anthropic thinking, inside its decoded bytes. */
const magic = 'gwthink1:'

type CarriedBlock = { thinking: string; signature: string } | { redacted: string }

/**
 * Anthropic thinking that must survive a Gemini client's round trip. Anthropic refuses a tool
 * turn without the signed thinking that preceded it (while thinking is on), and Gemini clients
 * keep nothing of a turn but its parts: they drop thought text (Gemini CLI keeps no thought
 * parts) yet echo every function call's `thoughtSignature`, as Gemini 3 requires. So the thinking
 * blocks (text and signature, or redacted data) travel in that signature, as the bytes
 * `gwthink1:<JSON>` in canonical base64, and come back byte for byte; no server state is kept.
 * Gemini's own signatures never look like this, so the two cannot be confused.
 *
 * @returns the signature value, or `undefined` when no part carries an Anthropic signature.
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export function packCarriedThinking(parts: readonly ReasoningPart[]): string | undefined {
  const blocks: CarriedBlock[] = []
  for (const part of parts) {
    if (part.redacted?.protocol === 'anthropic') blocks.push({ redacted: part.redacted.value })
    else if (part.signature?.protocol === 'anthropic')
      blocks.push({ thinking: part.text, signature: part.signature.value })
  }
  if (blocks.length === 0) return undefined
  let binary = ''
  for (const byte of new TextEncoder().encode(magic + JSON.stringify(blocks)))
    binary += String.fromCharCode(byte)
  return btoa(binary)
}

/**
 * The Anthropic thinking a `thoughtSignature` carries (see `packCarriedThinking`), as reasoning
 * parts signed by Anthropic; `undefined` for any other signature.
 */
export function unpackCarriedThinking(signature: string): ReasoningPart[] | undefined {
  // The base64 of "gwthink1:" starts with these characters; anything else is Gemini's own.
  if (!signature.startsWith('Z3d0aGluazE6')) return undefined
  let text: string
  try {
    const binary = atob(signature)
    text = new TextDecoder('utf-8', { fatal: true }).decode(
      Uint8Array.from(binary, (char) => char.charCodeAt(0)),
    )
  } catch {
    return undefined
  }
  if (!text.startsWith(magic)) return undefined
  const parsed = parseJson(text.slice(magic.length))
  if (!parsed.ok || !Array.isArray(parsed.value)) return undefined
  const parts: ReasoningPart[] = []
  for (const block of parsed.value as unknown[]) {
    if (typeof block !== 'object' || block === null) return undefined
    const record = block as Record<string, unknown>
    if (typeof record['redacted'] === 'string') {
      parts.push({
        type: 'reasoning',
        text: '',
        redacted: { protocol: 'anthropic', value: record['redacted'] },
      })
    } else if (typeof record['thinking'] === 'string' && typeof record['signature'] === 'string') {
      parts.push({
        type: 'reasoning',
        text: record['thinking'],
        signature: { protocol: 'anthropic', value: record['signature'] },
      })
    } else {
      return undefined
    }
  }
  return parts
}
