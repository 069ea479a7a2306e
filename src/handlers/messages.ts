import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { parseJsonBody } from '../http/parse-json-body'
import { readRequestText } from '../http/read-body'
import { findTopLevelMembers, applyEdits } from '../internal/json-members'
import { anthropicUsageToCanonical } from '../protocols/anthropic/canonical-usage'
import { anthropicPassthroughStream } from '../protocols/anthropic/passthrough-stream'
import { decodeAnthropicRequest } from '../protocols/anthropic/request-decode'
import {
  anthropicMessagesRequestSchema,
  type AnthropicMessagesRequest,
} from '../protocols/anthropic/request-schema'
import {
  hasGatewayThinking,
  withoutGatewayThinking,
} from '../protocols/anthropic/thinking-signature'
import { relayCall, type CallPlan } from '../relay/relay-call'
import { passthroughJsonAnswer, routeCall } from '../relay/route-call'
import { translatedPlan } from '../relay/translated-plan'
import { toTokenUsage } from '../canonical/usage'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'

/** Client headers an Anthropic upstream gets on passthrough: the API version and the betas. */
export const anthropicPassthroughHeaders = ['anthropic-version', 'anthropic-beta'] as const

/**
 * `POST /v1/messages` (spec §2.3), also with `?beta=true` (the query never affects routing). To an
 * `anthropic` group this is passthrough: the body goes upstream with only `model` rewritten, with
 * the client's `anthropic-version` and `anthropic-beta`. To an `openai` group the request, the
 * answer and the stream are translated through the canonical form.
 */
export async function handleMessages(
  runtime: GatewayRuntime,
  scope: RequestScope,
): Promise<Response> {
  const text = await readRequestText(scope.request, runtime.maxBodyBytes)
  const body = parseJsonBody(text, anthropicMessagesRequestSchema)
  const common = await routeCall(runtime, scope, {
    model: body.model,
    stream: body.stream === true,
    text,
    maxOutputTokens: body.max_tokens,
  })
  const route = common.route
  const plan: CallPlan =
    common.provider.protocol === 'anthropic'
      ? {
          ...common,
          operation: 'messages',
          body: rewriteModel(text, body, route.model.upstreamModel),
          headers: buildUpstreamHeaders(scope.request.headers, [
            ...runtime.forwardHeaders,
            ...anthropicPassthroughHeaders,
          ]),
          answerJson: (answer) =>
            passthroughJsonAnswer(answer, 'usage', (usage) =>
              toTokenUsage(anthropicUsageToCanonical(usage)),
            ),
          translator: anthropicPassthroughStream,
        }
      : translatedPlan(runtime, scope, decodeAnthropicRequest(body), 'anthropic', common)
  return relayCall(runtime, scope, scope.key!, plan)
}

/**
 * Splices the upstream model into the client's body text; nothing else is re-encoded, unless the
 * body carries gateway-tagged thinking, which Anthropic would reject (TOOL-H-10).
 */
function rewriteModel(text: string, body: AnthropicMessagesRequest, upstreamModel: string): string {
  if (hasGatewayThinking(text))
    return JSON.stringify(withoutGatewayThinking({ ...body, model: upstreamModel }))
  if (body.model === upstreamModel) return text
  const span = findTopLevelMembers(text)?.members.get('model')
  if (span === undefined) return JSON.stringify({ ...body, model: upstreamModel })
  return applyEdits(text, [
    { start: span.valueStart, end: span.valueEnd, text: JSON.stringify(upstreamModel) },
  ])
}
