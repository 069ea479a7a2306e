import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { parseJsonBody } from '../http/parse-json-body'
import { readRequestText } from '../http/read-body'
import { openAIPassthroughStream } from '../protocols/openai/passthrough-stream'
import { decodeOpenAIRequest } from '../protocols/openai/request-decode'
import { openAIChatRequestSchema, type OpenAIChatRequest } from '../protocols/openai/request-schema'
import { rewriteOpenAIChatBody } from '../protocols/openai/rewrite-body'
import { readOpenAIUsage } from '../protocols/openai/canonical-usage'
import { relayCall, type CallPlan } from '../relay/relay-call'
import { passthroughJsonAnswer, routeCall } from '../relay/route-call'
import { translatedPlan, type CommonPlan } from '../relay/translated-plan'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'

/**
 * `POST /v1/chat/completions` (spec §2.1, §2.2, §6). To an `openai` group this is passthrough:
 * the client's body goes upstream with only `model` rewritten (and `stream_options.include_usage`
 * added on streams, to meter them). To an `anthropic` group the request, the answer and the
 * stream are translated through the canonical form.
 */
export async function handleChatCompletions(
  runtime: GatewayRuntime,
  scope: RequestScope,
): Promise<Response> {
  const text = await readRequestText(scope.request, runtime.maxBodyBytes)
  const body = parseJsonBody(text, openAIChatRequestSchema)
  const common = await routeCall(runtime, scope, {
    model: body.model,
    stream: body.stream === true,
    text,
    maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
  })
  const plan: CallPlan =
    common.provider.protocol === 'openai'
      ? passthroughPlan(runtime, scope, text, body, common)
      : translatedPlan(runtime, scope, openAIRequestForTranslation(body), 'openai', common)
  return relayCall(runtime, scope, scope.key!, plan)
}

function passthroughPlan(
  runtime: GatewayRuntime,
  scope: RequestScope,
  text: string,
  body: OpenAIChatRequest,
  common: CommonPlan,
): CallPlan {
  return {
    ...common,
    operation: 'chat-completions',
    body: rewriteOpenAIChatBody(text, body, {
      upstreamModel: common.route.model.upstreamModel,
      includeUsage: common.stream,
    }),
    headers: buildUpstreamHeaders(scope.request.headers, runtime.forwardHeaders),
    // The upstream's bytes go back unchanged; only its `usage` member is located and parsed.
    answerJson: (answer) => passthroughJsonAnswer(answer, 'usage', readOpenAIUsage),
    translator: () =>
      openAIPassthroughStream({ clientWantsUsage: body.stream_options?.include_usage === true }),
  }
}

/** The canonical form of a chat request bound for another protocol. */
function openAIRequestForTranslation(body: OpenAIChatRequest) {
  const n = (body as { n?: unknown }).n
  if (typeof n === 'number' && n > 1) {
    // The gateway answers one choice on translated paths; fanning out would multiply cost (GEN-06).
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
