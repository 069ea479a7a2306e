import type { Signed } from '../../canonical/types'
import { isJsonObject } from '../../internal/json'

/** The prefix of signatures the gateway writes on thinking that Anthropic did not sign. */
const gatewayPrefix = 'gw1.'

/**
 * The signature the gateway puts on a thinking block whose reasoning came from another protocol
 * (DeepSeek's `reasoning_content`, say). Claude Code drops thinking blocks without a signature, so
 * the block carries this tag, which no one can mistake for Anthropic's: it is not forged, and when
 * a client sends the block back the gateway drops it before anything reaches Anthropic
 * (checklist RR-02, TOOL-H-10).
 */
export function gatewayThinkingSignature(): string {
  return `${gatewayPrefix}unsigned`
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

/** Whose signature a client sent back on a thinking block: Anthropic's, or the gateway's tag. */
export function readThinkingSignature(value: string): Signed {
  return value.startsWith(gatewayPrefix)
    ? { protocol: 'openai', value }
    : { protocol: 'anthropic', value }
}
