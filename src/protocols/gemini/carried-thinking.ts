import type { ReasoningPart } from '../../canonical/types'
import { base64ToUtf8, utf8ToBase64 } from '../../internal/base64'
import { isJsonObject, parseJson } from '../../internal/json'
import {
  alteredCarrier,
  checkCarrierLength,
  checkedCarriedReasoning,
  maxReasoningCarrierLength,
} from '../openai/reasoning-origin'

/** Marks a `thoughtSignature` that carries the gateway's reasoning, inside its decoded bytes. */
const magic = 'gwthink1:'

/** The base64 of `magic` starts with these characters; anything else is Gemini's own. */
const encodedMagic = 'Z3d0aGluazE6'

/**
 * One carried block: Anthropic thinking (text and signature, or redacted data), or reasoning of an
 * `openai`-protocol upstream (text and its canonical origin).
 */
type CarriedBlock =
  | { thinking: string; signature: string }
  | { redacted: string }
  | { reasoning: string; origin: string }
  | { converse: string; signature: string }
  | { converseRedacted: string }

/**
 * Reasoning that must survive a Gemini client's round trip. Anthropic refuses a tool turn without
 * the signed thinking that preceded it (while thinking is on), DeepSeek one without its
 * `reasoning_content`; and Gemini clients keep nothing of a turn but its parts: they drop thought
 * text (Gemini CLI keeps no thought parts) yet echo every function call's `thoughtSignature`, as
 * Gemini 3 requires. So the reasoning travels in the signature of the step's first function call,
 * as the bytes `gwthink1:<JSON array of blocks>` in canonical base64, and comes back byte for
 * byte; no server state is kept. Gemini's own signatures never look like this.
 *
 * Carried: Anthropic thinking (text and signature, or redacted data), reasoning an
 * `openai`-protocol upstream returned (text and origin, ADR 0018), and a Converse upstream's
 * signed or redacted reasoning. A carrier longer than
 * `maxReasoningCarrierLength` is not minted: the reasoning is then only shown as thought parts.
 *
 * @returns the signature value, or `undefined` when nothing is to be carried.
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export function packCarriedThinking(parts: readonly ReasoningPart[]): string | undefined {
  const blocks: CarriedBlock[] = []
  for (const part of parts) {
    if (part.redacted?.protocol === 'anthropic') blocks.push({ redacted: part.redacted.value })
    else if (part.signature?.protocol === 'anthropic')
      blocks.push({ thinking: part.text, signature: part.signature.value })
    else if (part.signature?.protocol === 'openai')
      blocks.push({ reasoning: part.text, origin: part.signature.value })
    else if (part.redacted?.protocol === 'converse')
      blocks.push({ converseRedacted: part.redacted.value })
    else if (part.signature?.protocol === 'converse')
      blocks.push({ converse: part.text, signature: part.signature.value })
  }
  if (blocks.length === 0) return undefined
  const carrier = utf8ToBase64(magic + JSON.stringify(blocks))
  return carrier.length <= maxReasoningCarrierLength ? carrier : undefined
}

/**
 * The reasoning a `thoughtSignature` carries (see `packCarriedThinking`): Anthropic thinking as
 * reasoning signed by Anthropic, an OpenAI-compatible upstream's reasoning with its checked
 * origin; `undefined` for Gemini's own signatures. A signature that starts as the gateway's but
 * does not read back — altered, cut, or longer than the bound — is a 400 at `param`: sending
 * its contents on would hand an upstream reasoning it never wrote.
 */
export function unpackCarriedThinking(
  signature: string,
  param = 'thoughtSignature',
): ReasoningPart[] | undefined {
  if (!signature.startsWith(encodedMagic)) return undefined
  checkCarrierLength(signature, param)
  const text = base64ToUtf8(signature)
  const parsed = text?.startsWith(magic) === true ? parseJson(text.slice(magic.length)) : undefined
  if (parsed?.ok !== true || !Array.isArray(parsed.value) || parsed.value.length === 0)
    throw alteredCarrier(param)
  return parsed.value.map((block: unknown) => {
    const part = carriedPart(block)
    if (part === undefined) throw alteredCarrier(param)
    return checkedCarriedReasoning(part, param)
  })
}

function carriedPart(block: unknown): ReasoningPart | undefined {
  if (!isJsonObject(block)) return undefined
  const { redacted, thinking, signature, reasoning, origin, converse, converseRedacted } = block
  if (typeof converseRedacted === 'string')
    return {
      type: 'reasoning',
      text: '',
      redacted: { protocol: 'converse', value: converseRedacted },
    }
  if (typeof converse === 'string' && typeof signature === 'string')
    return {
      type: 'reasoning',
      text: converse,
      signature: { protocol: 'converse', value: signature },
    }
  if (typeof redacted === 'string')
    return { type: 'reasoning', text: '', redacted: { protocol: 'anthropic', value: redacted } }
  if (typeof thinking === 'string' && typeof signature === 'string')
    return {
      type: 'reasoning',
      text: thinking,
      signature: { protocol: 'anthropic', value: signature },
    }
  if (typeof reasoning === 'string' && typeof origin === 'string')
    return { type: 'reasoning', text: reasoning, signature: { protocol: 'openai', value: origin } }
  return undefined
}
