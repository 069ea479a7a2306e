import type { ReasoningPart, Signed } from '../../canonical/types'
import { base64UrlToUtf8, utf8ToBase64Url } from '../../internal/base64'
import { isJsonObject } from '../../internal/json'
import {
  alteredCarrier,
  checkCarrierLength,
  checkedCarriedReasoning,
  maxReasoningCarrierLength,
} from '../openai/reasoning-origin'

/** The prefix of signatures the gateway writes on thinking that Anthropic did not sign. */
const gatewayPrefix = 'gw1.'

/** The tag on thinking the gateway carries nothing for (another vendor's reasoning). */
const unsignedTag = `${gatewayPrefix}unsigned`

/** The prefix of the tag that carries the origin of an `openai`-protocol upstream's reasoning. */
const originPrefix = `${gatewayPrefix}o.`

/** The prefix of the tag that carries a Converse upstream's reasoning signature. */
const conversePrefix = `${gatewayPrefix}c.`

/**
 * The signature the gateway puts on a thinking block whose reasoning came from another protocol.
 * Claude Code drops thinking blocks without a signature, so the block carries a tag no one can
 * mistake for Anthropic's: it is not forged, and when a client sends the block back the gateway
 * drops it before anything reaches Anthropic (RR-02, TOOL-H-10).
 *
 * Reasoning an `openai`-protocol upstream returned (DeepSeek's `reasoning_content`) gets
 * `gw1.o.` + base64url(its canonical origin: field, upstream model, digest of the text), so that
 * the block's text goes back to that model byte for byte (ADR 0018); a Converse upstream's
 * signature gets `gw1.c.` + base64url(the signature), so that it goes back to Converse as it was
 * (a model there checks it, as Claude does); anything else `gw1.unsigned`.
 */
export function gatewayThinkingSignature(signature?: Signed): string {
  if (signature?.protocol !== 'openai' && signature?.protocol !== 'converse') return unsignedTag
  const tag =
    (signature.protocol === 'openai' ? originPrefix : conversePrefix) +
    utf8ToBase64Url(signature.value)
  // An origin too long to carry (a huge upstream detail) is not carried: the text still shows.
  return tag.length <= maxReasoningCarrierLength ? tag : unsignedTag
}

/**
 * Removes thinking blocks that carry the gateway's tag from the `messages` of a body bound for
 * Anthropic, which would reject them. Callers check `hasGatewayThinking` on the raw text first,
 * so the common body is never decoded and re-encoded for this.
 */
export function withoutGatewayThinking(messages: readonly unknown[]): unknown[] {
  return messages.map((message) => {
    if (!isJsonObject(message) || !Array.isArray(message['content'])) return message
    const content = message['content'].filter(
      (block: unknown) =>
        !(
          isJsonObject(block) &&
          block['type'] === 'thinking' &&
          typeof block['signature'] === 'string' &&
          block['signature'].startsWith(gatewayPrefix)
        ),
    )
    return { ...message, content }
  })
}

/** True when a raw body may carry gateway-tagged thinking (a cheap text check). */
export function hasGatewayThinking(text: string): boolean {
  return text.includes(`"${gatewayPrefix}`)
}

/**
 * A thinking block a client sent back, as reasoning: Anthropic's signature kept as Anthropic's;
 * the gateway's `gw1.o.` tag read back into the `openai` origin it carries, checked against the
 * block's text (an altered text or tag is a 400 at `param`); `gw1.unsigned` as reasoning without a
 * signature; `gw1.c.` as the Converse signature it carries (Converse checks it). Any other
 * `gw1.` value was never handed out, and is a 400 too.
 */
export function readThinkingBlock(text: string, signature: string, param: string): ReasoningPart {
  if (signature === '') return { type: 'reasoning', text }
  if (!signature.startsWith(gatewayPrefix))
    return { type: 'reasoning', text, signature: { protocol: 'anthropic', value: signature } }
  if (signature === unsignedTag) return { type: 'reasoning', text }
  checkCarrierLength(signature, param)
  if (signature.startsWith(conversePrefix)) {
    const value = base64UrlToUtf8(signature.slice(conversePrefix.length))
    if (value === undefined || value === '') throw alteredCarrier(param)
    return { type: 'reasoning', text, signature: { protocol: 'converse', value } }
  }
  const origin = signature.startsWith(originPrefix)
    ? base64UrlToUtf8(signature.slice(originPrefix.length))
    : undefined
  if (origin === undefined) throw alteredCarrier(param)
  return checkedCarriedReasoning(
    { type: 'reasoning', text, signature: { protocol: 'openai', value: origin } },
    param,
  )
}
