import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { parseJsonBody } from '../http/parse-json-body'
import { readRequestText } from '../http/read-body'
import { parseJson } from '../internal/json'
import { findTopLevelMembers } from '../internal/json-members'
import { decodeAnthropicResponse } from '../protocols/anthropic/response'
import { encodeAnthropicRequest } from '../protocols/anthropic/request-encode'
import { createAnthropicStreamDecoder } from '../protocols/anthropic/stream-decode'
import { openAIStreamErrorFrame } from '../protocols/openai/errors'
import { openAIPassthroughStream } from '../protocols/openai/passthrough-stream'
import { decodeOpenAIRequest } from '../protocols/openai/request-decode'
import { openAIChatRequestSchema, type OpenAIChatRequest } from '../protocols/openai/request-schema'
import { encodeOpenAIResponse } from '../protocols/openai/response'
import { rewriteOpenAIChatBody } from '../protocols/openai/rewrite-body'
import { createOpenAIStreamEncoder } from '../protocols/openai/stream-encode'
import { readOpenAIUsage } from '../protocols/openai/usage'
import { relayCall, type CallPlan } from '../relay/relay-call'
import { translatedStream } from '../relay/translated-stream'
import { pickUpstream } from '../routing/pick-upstream'
import { resolveRoute } from '../routing/resolve-route'
import { toTokenUsage } from '../canonical/usage'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import { estimateTokens } from '../usage/estimate-tokens'

/** `max_tokens` sent to Anthropic when an OpenAI client set none (Anthropic requires one). */
export const defaultAnthropicMaxTokens = 4096

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
  const key = scope.key!
  const text = await readRequestText(scope.request, runtime.maxBodyBytes)
  const body = parseJsonBody(text, openAIChatRequestSchema)
  const stream = body.stream === true
  scope.event.model = body.model
  scope.event.stream = stream
  const route = await resolveRoute(runtime.registry, key, body.model, runtime.groupIdRouting)
  const provider = pickUpstream(route.group.upstreams, runtime.random)
  Object.assign(scope.event, {
    group: route.group.id,
    upstreamModel: route.model.upstreamModel,
    provider: provider.id,
  })
  const common = {
    route,
    provider,
    model: body.model,
    stream,
    estimatedTokens: estimateTokens(text) + (body.max_completion_tokens ?? body.max_tokens ?? 0),
  }
  const plan: CallPlan =
    provider.protocol === 'openai'
      ? passthroughPlan(runtime, scope, text, body, common)
      : translatedToAnthropicPlan(runtime, scope, body, common)
  return relayCall(runtime, scope, key, plan)
}

type CommonPlan = Pick<CallPlan, 'route' | 'provider' | 'model' | 'stream' | 'estimatedTokens'>

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
    answerJson(answer) {
      const span = findTopLevelMembers(answer)?.members.get('usage')
      const parsed =
        span === undefined ? undefined : parseJson(answer.slice(span.valueStart, span.valueEnd))
      return {
        body: answer,
        usage: parsed?.ok === true ? readOpenAIUsage(parsed.value) : undefined,
      }
    },
    translator: () =>
      openAIPassthroughStream({ clientWantsUsage: body.stream_options?.include_usage === true }),
  }
}

function translatedToAnthropicPlan(
  runtime: GatewayRuntime,
  scope: RequestScope,
  body: OpenAIChatRequest,
  common: CommonPlan,
): CallPlan {
  const n = (body as { n?: unknown }).n
  if (typeof n === 'number' && n > 1) {
    // Anthropic has no `n`; fanning out would multiply cost behind the caller's back (GEN-06).
    throw new GatewayError(
      'invalid_request',
      'This model answers one choice at a time: `n` must be 1.',
      {
        param: 'n',
      },
    )
  }
  const request = decodeOpenAIRequest(body)
  request.model = common.route.model.upstreamModel
  const id = `chatcmpl-${scope.requestId}`
  const created = Math.floor(runtime.now() / 1000)
  return {
    ...common,
    operation: 'messages',
    body: JSON.stringify(
      encodeAnthropicRequest(request, { defaultMaxTokens: defaultAnthropicMaxTokens }),
    ),
    headers: buildUpstreamHeaders(scope.request.headers, runtime.forwardHeaders),
    answerJson(answer) {
      const parsed = parseJson(answer)
      const response = decodeAnthropicResponse(parsed.ok ? parsed.value : undefined)
      const encoded = encodeOpenAIResponse(response, { id, model: common.model, created })
      return { body: JSON.stringify(encoded), usage: toTokenUsage(response.usage) }
    },
    translator: () =>
      translatedStream(
        createAnthropicStreamDecoder(),
        createOpenAIStreamEncoder({
          id,
          model: common.model,
          created,
          includeUsage: request.streamUsage === true,
        }),
        openAIStreamErrorFrame,
      ),
  }
}
