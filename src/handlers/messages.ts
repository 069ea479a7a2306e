import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { parseClientJson, readModelField, scanClientJson } from '../http/client-json'
import { validateBody } from '../http/validate-body'
import { anthropicUsageToCanonical } from '../protocols/anthropic/canonical-usage'
import { anthropicPassthroughBody } from '../protocols/anthropic/passthrough-body'
import { anthropicPassthroughStream } from '../protocols/anthropic/passthrough-stream'
import { decodeAnthropicRequest } from '../protocols/anthropic/request-decode'
import {
  anthropicArrayLimits,
  anthropicMessagesRequestSchema,
} from '../protocols/anthropic/request-schema'
import { clientCodecs } from '../relay/protocol-codecs'
import { relayCall, type CallPlan } from '../relay/relay-call'
import { passthroughJsonAnswer, resolveCall, routeCall } from '../relay/route-call'
import { translatedPlan } from '../relay/translated-plan'
import { toTokenUsage } from '../canonical/usage'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import { type GatewayAnswer } from '../http/gateway-answer'
import type { RouteDefinition } from './route-definition'

/** Client headers an Anthropic upstream gets on passthrough: the API version and the betas. */
export const anthropicPassthroughHeaders = ['anthropic-version', 'anthropic-beta'] as const

/**
 * `POST /v1/messages`, also with `?beta=true` (the query never affects routing). To an
 * `anthropic` group this is passthrough: the body goes upstream with only `model` rewritten, with
 * the client's `anthropic-version` and `anthropic-beta`. To an `openai` group the request, the
 * answer and the stream are translated through the canonical form.
 */
export async function handleMessages(
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<GatewayAnswer> {
  const scanned = scanClientJson(await scope.request.text(runtime.maxBodyBytes))
  const route = await resolveCall(runtime, scope, readModelField(scanned))
  const json = parseClientJson(scanned)
  const body = validateBody(json.value, anthropicMessagesRequestSchema, anthropicArrayLimits)
  const routed = routeCall(runtime, scope, route, {
    model: body.model,
    stream: body.stream === true,
    text: json.text,
    maxOutputTokens: body.max_tokens,
    protocol: 'anthropic',
    body,
  })
  return relayCall(runtime, scope, routed, (common): CallPlan =>
    common.provider.protocol === 'anthropic'
      ? {
          ...common,
          operation: 'messages',
          body: anthropicPassthroughBody(json, common.route.model.upstreamModel),
          headers: buildUpstreamHeaders(scope.request.headers, [
            ...runtime.forwardHeaders,
            ...anthropicPassthroughHeaders,
          ]),
          answerJson: (text, json) =>
            passthroughJsonAnswer(
              text,
              json,
              'usage',
              (usage) => toTokenUsage(anthropicUsageToCanonical(usage)),
              { modelMember: 'model', callName: common.model },
            ),
          translator: () => anthropicPassthroughStream(common.model),
        }
      : translatedPlan(
          runtime,
          scope,
          decodeAnthropicRequest(body),
          clientCodecs.anthropic,
          common,
        ),
  )
}

/** `POST /v1/messages`. */
export const messagesRoutes: readonly RouteDefinition[] = [
  {
    name: 'messages',
    method: 'POST',
    paths: ['/v1/messages'],
    errors: 'anthropic',
    handler: handleMessages,
  },
]
