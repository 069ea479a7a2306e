import { GatewayError } from '../errors'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import {
  parseClientJson,
  readModelField,
  scanClientJson,
  type ClientJson,
} from '../http/client-json'
import { validateBody } from '../http/validate-body'
import { openAIPassthroughStream } from '../protocols/openai/passthrough-stream'
import { decodeOpenAIRequest } from '../protocols/openai/request-decode'
import {
  openAIArrayLimits,
  openAIChatRequestSchema,
  type OpenAIChatRequest,
} from '../protocols/openai/request-schema'
import { rewriteOpenAIChatBody } from '../protocols/openai/rewrite-body'
import { readOpenAIUsage } from '../protocols/openai/canonical-usage'
import { clientCodecs } from '../relay/protocol-codecs'
import { relayCall, type CallPlan } from '../relay/relay-call'
import { passthroughJsonAnswer, resolveCall, routeCall } from '../relay/route-call'
import type { CommonPlan } from '../relay/call-plan'
import { translatedPlan } from '../relay/translated-plan'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import { type GatewayAnswer } from '../http/gateway-answer'
import type { RouteDefinition } from './route-definition'

/**
 * `POST /v1/chat/completions`. To an `openai` group this is passthrough:
 * the client's body goes upstream with only `model` rewritten (and `stream_options.include_usage`
 * added on streams, to meter them). To an `anthropic` group the request, the answer and the
 * stream are translated through the canonical form.
 */
export async function handleChatCompletions(
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<GatewayAnswer> {
  const scanned = scanClientJson(await scope.request.text(runtime.maxBodyBytes))
  const route = await resolveCall(runtime, scope, readModelField(scanned))
  const json = parseClientJson(scanned)
  const body = validateBody(json.value, openAIChatRequestSchema, openAIArrayLimits)
  const routed = routeCall(runtime, scope, route, {
    model: body.model,
    stream: body.stream === true,
    text: json.text,
    maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    protocol: 'openai',
    body,
  })
  return relayCall(runtime, scope, routed, (common) =>
    common.provider.protocol === 'openai'
      ? passthroughPlan(runtime, scope, json, body, common)
      : translatedPlan(
          runtime,
          scope,
          openAIRequestForTranslation(body),
          clientCodecs.openai,
          common,
        ),
  )
}

function passthroughPlan(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  json: ClientJson,
  body: OpenAIChatRequest,
  common: CommonPlan,
): CallPlan {
  return {
    ...common,
    operation: 'chat-completions',
    body: rewriteOpenAIChatBody(json, {
      upstreamModel: common.route.model.upstreamModel,
      includeUsage: common.stream,
    }),
    headers: buildUpstreamHeaders(scope.request.headers, runtime.forwardHeaders),
    // The upstream's bytes go back unchanged; only its `usage` member is located and parsed.
    answerJson: (text, json) =>
      passthroughJsonAnswer(text, json, 'usage', readOpenAIUsage, {
        modelMember: 'model',
        callName: common.model,
      }),
    translator: () =>
      openAIPassthroughStream({
        clientWantsUsage: body.stream_options?.include_usage === true,
        callName: common.model,
      }),
  }
}

/** The canonical form of a chat request bound for another protocol. */
function openAIRequestForTranslation(body: OpenAIChatRequest) {
  const n = (body as { n?: unknown }).n
  if (typeof n === 'number' && n > 1) {
    // The gateway answers one choice on translated paths: fanning one request out into `n` upstream
    // calls would multiply its cost behind the key's back.
    throw new GatewayError(
      'invalid_request',
      'This model answers one choice at a time: `n` must be 1.',
      {
        param: 'n',
      },
    )
  }
  return decodeOpenAIRequest(body)
}

/**
 * `POST /v1/chat/completions`, also without `/v1`: the openai SDK given a base URL that lacks it
 * calls `/chat/completions`.
 */
export const chatCompletionsRoutes: readonly RouteDefinition[] = [
  {
    name: 'chat.completions',
    method: 'POST',
    paths: ['/v1/chat/completions', '/chat/completions'],
    errors: 'openai',
    handler: handleChatCompletions,
  },
]
