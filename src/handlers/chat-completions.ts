import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { parseJson } from '../internal/json'
import { readRequestText } from '../http/read-body'
import { openAIChatRequestSchema, type OpenAIChatRequest } from '../protocols/openai/request-schema'
import { rewriteOpenAIChatBody } from '../protocols/openai/rewrite-body'
import { relayOpenAIJson } from '../relay/relay-openai-json'
import { relaySse } from '../relay/relay-sse'
import { openAIPassthroughStream } from '../protocols/openai/passthrough-stream'
import { pickUpstream } from '../routing/pick-upstream'
import { resolveRoute } from '../routing/resolve-route'
import { classifyUpstreamFailure } from '../upstream/classify-failure'
import { openExchange } from '../upstream/exchange'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import { readUpstreamError } from '../upstream/read-upstream-error'
import { estimateTokens } from '../usage/estimate-tokens'
import { startMeteredRequest } from '../usage/metered-request'
import { admit } from '../usage/admit'

/**
 * `POST /v1/chat/completions` (spec §2.1, §2.2, §6). For an `openai` group this is passthrough:
 * the client's body goes upstream with only `model` rewritten (and `stream_options.include_usage`
 * added on streams, to meter them).
 */
export async function handleChatCompletions(
  runtime: GatewayRuntime,
  scope: RequestScope,
): Promise<Response> {
  const key = scope.key!
  const text = await readRequestText(scope.request, runtime.maxBodyBytes)
  const body = parseChatRequest(text)
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
  if (route.group.protocol !== 'openai' || provider.protocol !== 'openai') {
    throw new GatewayError(
      'internal',
      `Group \`${route.group.id}\` does not speak chat-completions.`,
    )
  }

  const reservation = await admit(runtime, scope, key, {
    estimatedTokens: estimateTokens(text) + (body.max_completion_tokens ?? body.max_tokens ?? 0),
  })
  const metered = startMeteredRequest(runtime, scope, reservation, {
    groupId: route.group.id,
    providerId: provider.id,
    model: body.model,
    upstreamModel: route.model.upstreamModel,
    stream,
  })
  const exchange = openExchange(scope.request.signal, runtime.upstreamTimeoutMs, runtime.now)
  try {
    const upstream = await provider.send({
      operation: 'chat-completions',
      model: route.model.upstreamModel,
      body: rewriteOpenAIChatBody(text, body, {
        upstreamModel: route.model.upstreamModel,
        includeUsage: stream,
      }),
      headers: buildUpstreamHeaders(scope.request.headers, runtime.forwardHeaders),
      stream,
      signal: exchange.signal,
    })
    if (!upstream.ok) throw await readUpstreamError(upstream)
    const isEventStream =
      upstream.headers.get('content-type')?.includes('text/event-stream') === true
    if (stream && isEventStream) {
      scope.eventDeferred = true
      const response = await relaySse(upstream, {
        exchange,
        metered,
        translator: openAIPassthroughStream({
          clientWantsUsage: body.stream_options?.include_usage === true,
        }),
        idleTimeoutMs: runtime.streamIdleTimeoutMs,
        maxEventBytes: runtime.maxResponseBytes,
        onEnd: (outcome) => scope.complete(200, outcome),
      })
      return response
    }
    const relayed = await relayOpenAIJson(upstream, runtime.maxResponseBytes)
    exchange.dispose()
    metered.finish('ok', relayed.response.status, relayed.usage)
    return relayed.response
  } catch (error) {
    scope.eventDeferred = false
    const failure = classifyUpstreamFailure(error, exchange)
    exchange.dispose()
    metered.finish(
      failure.name === 'ClientGoneError' ? 'aborted' : 'error',
      GatewayError.isInstance(failure) ? failure.status : 499,
      undefined,
    )
    throw failure
  }
}

/** Parses and validates the body; a bad field gets a 400 that names it. */
function parseChatRequest(text: string): OpenAIChatRequest {
  const parsed = parseJson(text)
  if (!parsed.ok) {
    throw new GatewayError(
      'invalid_request',
      `The request body is not valid JSON: ${parsed.error.message}`,
    )
  }
  const result = openAIChatRequestSchema.safeParse(parsed.value)
  if (result.success) return result.data
  const issue = result.error.issues[0]!
  const param = issue.path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
    )
    .join('')
  const field = param === '' ? 'the request body' : `\`${param}\``
  throw new GatewayError('invalid_request', `Invalid ${field}: ${issue.message}`, {
    param: param === '' ? undefined : param,
  })
}
