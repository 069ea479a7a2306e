import type { ClientJson } from '../../http/client-json'
import { spliceClientJson } from '../../http/splice-body'
import { isJsonObject } from '../../internal/json'

/** What passthrough changes in a chat-completions body. */
export type OpenAIBodyRewrite = {
  /** The model name the upstream expects. */
  upstreamModel: string
  /** Ask the upstream for a usage chunk (`stream_options.include_usage`), so usage can be metered. */
  includeUsage: boolean
}

/**
 * Rewrites a chat-completions body for passthrough: only `model` (and, on streams,
 * `stream_options.include_usage`) change, spliced into the client's text (`spliceClientJson`), so
 * unknown fields, key order and number formatting reach the upstream exactly as sent.
 */
export function rewriteOpenAIChatBody(json: ClientJson, rewrite: OpenAIBodyRewrite): string {
  const body = isJsonObject(json.value) ? json.value : {}
  const options = body['stream_options']
  const hasUsage = isJsonObject(options) && options['include_usage'] === true
  return spliceClientJson(json, {
    model: rewrite.upstreamModel,
    stream_options:
      rewrite.includeUsage && !hasUsage
        ? { ...(isJsonObject(options) ? options : {}), include_usage: true }
        : undefined,
  })
}
