import { GatewayError } from '../errors'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { parseClientJson } from '../http/client-json'
import { validateBody } from '../http/validate-body'
import { finiteNumber } from '../internal/json'
import { encodeAnthropicRequest } from '../protocols/anthropic/request-encode'
import { decodeGeminiRequest } from '../protocols/gemini/request-decode'
import { normalizeGeminiBody } from '../protocols/gemini/normalize-body'
import { geminiPassthroughBody } from '../protocols/gemini/passthrough-body'
import {
  countTokensContentRequest,
  geminiCountTokensArrayLimits,
  geminiCountTokensRequestSchema,
} from '../protocols/gemini/request-schema'
import { sessionHintOf } from '../failover/session-hint'
import { callThroughChain, type CallFacts } from '../relay/call-chain'
import { callUnmetered, type UnmeteredCall } from '../relay/call-unmetered'
import { resolveCall } from '../relay/route-call'
import type { UpstreamOperation } from '../upstream/provider'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import { geminiCallName } from './gemini-generate'
import { jsonContentType, textAnswer, jsonAnswer, type GatewayAnswer } from '../http/gateway-answer'
import type { RouteDefinition } from './route-definition'

/**
 * `POST /v1beta/models/{model}:countTokens`, with `{contents}` or `{generateContentRequest}`.
 * - On a `gemini` group it is forwarded and answers `{"totalTokens": N}`.
 * - On an `anthropic` group it is translated to count_tokens (system and tools included) and
 *   answers `{"totalTokens": input_tokens}`.
 * - On an `openai` or `converse` group it answers 404 `NOT_FOUND`, as count_tokens does (no
 *   token counting endpoint in the family), decided before any upstream call. Counting is not metered.
 */
export async function handleGeminiCountTokens(
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<GatewayAnswer> {
  // The model is in the path: an unknown one is answered before the body is even read.
  const model = geminiCallName(scope)
  const route = await resolveCall(runtime, scope, model)
  const json = parseClientJson(await scope.request.text(runtime.maxBodyBytes))
  if (route.group.protocol === 'openai' || route.group.protocol === 'converse') {
    throw new GatewayError('not_found', 'Token counting is not supported for this group.')
  }
  const body = validateBody(
    normalizeGeminiBody(json.value),
    geminiCountTokensRequestSchema,
    geminiCountTokensArrayLimits,
  )
  const operation: UpstreamOperation =
    route.group.protocol === 'anthropic' ? 'count-tokens' : 'gemini-count-tokens'
  let upstreamBody: string
  if (operation === 'gemini-count-tokens') {
    upstreamBody = geminiPassthroughBody(json, route.model.upstreamModel)
  } else {
    const request = decodeGeminiRequest(
      countTokensContentRequest(body),
      route.model.upstreamModel,
      false,
    )
    const {
      max_tokens: _maxTokens,
      stream: _stream,
      ...count
    } = encodeAnthropicRequest(request, { defaultMaxTokens: 1 })
    upstreamBody = JSON.stringify(count)
  }
  const facts = { route, model, stream: false, protocol: 'gemini' as const, body }
  return callThroughChain(runtime, scope, facts, countUpstream, {
    operation,
    model: route.model.upstreamModel,
    body: upstreamBody,
    headers: buildUpstreamHeaders(scope.request.headers, runtime.forwardHeaders),
    sessionHint: sessionHintOf(
      'gemini',
      json.value,
      scope.request.headers,
      route.group.sessionAffinity,
    ),
  })
}

/** The count, from the group's upstreams, as Gemini's `{"totalTokens": N}`. */
async function countUpstream(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  facts: CallFacts,
  call: UnmeteredCall & { sessionHint: string | undefined },
): Promise<GatewayAnswer> {
  const answer = await callUnmetered(runtime, scope, facts.route.group, call, call.sessionHint)
  if (call.operation === 'gemini-count-tokens') {
    return textAnswer(answer.text, answer.status, jsonContentType)
  }
  return jsonAnswer({ totalTokens: finiteNumber(answer.body['input_tokens']) ?? 0 })
}

/** Gemini's `:countTokens`. */
export const geminiCountTokensRoutes: readonly RouteDefinition[] = [
  {
    name: 'gemini.count_tokens',
    method: 'POST',
    paths: ['/v1beta/models/{model}:countTokens'],
    errors: 'gemini',
    handler: handleGeminiCountTokens,
  },
]
