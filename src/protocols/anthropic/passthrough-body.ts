import type { ClientJson } from '../../http/client-json'
import { spliceClientJson } from '../../http/splice-body'
import { isJsonObject } from '../../internal/json'
import { hasGatewayThinking, withoutGatewayThinking } from './thinking-signature'

/**
 * The body an Anthropic upstream gets on passthrough (messages and count_tokens alike): the
 * client's text with only the upstream model spliced in (`spliceClientJson`). A body carrying
 * gateway-tagged thinking, which Anthropic would reject, also gets its `messages` re-encoded
 * without those blocks (TOOL-H-10).
 */
export function anthropicPassthroughBody(json: ClientJson, upstreamModel: string): string {
  const messages = isJsonObject(json.value) ? json.value['messages'] : undefined
  return spliceClientJson(json, {
    model: upstreamModel,
    messages:
      hasGatewayThinking(json.text) && Array.isArray(messages)
        ? withoutGatewayThinking(messages)
        : undefined,
  })
}
