import type { ClientJson } from '../../http/client-json'
import { spliceClientJson } from '../../http/splice-body'
import { isGatewayReasoningBlob } from './reasoning-blob'
import type { ResponsesInputItem, ResponsesRequest } from './request-schema'

/**
 * The body an OpenAI upstream marked `responses: true` gets on passthrough: the client's text with
 * only `model` spliced in (`spliceClientJson`), so unknown fields, key order and number formatting
 * arrive as sent.
 *
 * Two cases rewrite `input` as well:
 * - the response store resolved part of it (`resolved`: a `previous_response_id` or an
 *   `item_reference` the gateway answered itself, which the upstream could not know) — the full
 *   items go instead, and `previous_response_id` goes out as `null`;
 * - it carries reasoning the gateway minted for another upstream, which OpenAI would refuse
 *   (`invalid_encrypted_content`): those reasoning items are dropped (RESP-REQ-11).
 */
export function responsesPassthroughBody(
  json: ClientJson,
  body: ResponsesRequest,
  upstreamModel: string,
  resolved: readonly ResponsesInputItem[] | undefined,
): string {
  const input = resolved ?? body.input
  const carriesGatewayReasoning =
    Array.isArray(input) && input.some((item) => isGatewayReasoningBlob(item['encrypted_content']))
  const rewriteInput = resolved !== undefined || carriesGatewayReasoning
  return spliceClientJson(json, {
    model: upstreamModel,
    input: rewriteInput
      ? (input as readonly ResponsesInputItem[]).filter(
          (item) =>
            !(item.type === 'reasoning' && isGatewayReasoningBlob(item['encrypted_content'])),
        )
      : undefined,
    previous_response_id: resolved !== undefined ? null : undefined,
  })
}
