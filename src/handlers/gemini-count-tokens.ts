import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { parseJsonBody } from '../http/parse-json-body'
import { readRequestText } from '../http/read-body'
import { finiteNumber, isJsonObject, parseJson } from '../internal/json'
import { encodeAnthropicRequest } from '../protocols/anthropic/request-encode'
import { decodeGeminiRequest } from '../protocols/gemini/request-decode'
import {
  countTokensContentRequest,
  geminiCountTokensBodySchema,
} from '../protocols/gemini/request-schema'
import { callUnmetered } from '../relay/call-unmetered'
import { pickUpstream } from '../routing/pick-upstream'
import { resolveRoute } from '../routing/resolve-route'
import type { UpstreamOperation } from '../upstream/provider'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import { geminiCallName } from './gemini-generate'

/**
 * `POST /v1beta/models/{model}:countTokens`, with `{contents}` or `{generateContentRequest}`.
 * - On a `gemini` group it is forwarded and answers `{"totalTokens": N}`.
 * - On an `anthropic` group it is translated to count_tokens (system and tools included) and
 *   answers `{"totalTokens": input_tokens}` (checklist CT-X).
 * - On an `openai` group it answers 404 `NOT_FOUND`, as count_tokens does (spec §4 rule 1), decided
 *   before any upstream call. Counting is not metered.
 */
export async function handleGeminiCountTokens(
  runtime: GatewayRuntime,
  scope: RequestScope,
): Promise<Response> {
  const text = await readRequestText(scope.request, runtime.maxBodyBytes)
  const body = parseJsonBody(text, geminiCountTokensBodySchema)
  const callName = geminiCallName(scope)
  scope.event.model = callName
  const route = await resolveRoute(runtime.registry, scope.key!, callName, runtime.groupIdRouting)
  scope.event.group = route.group.id
  if (route.group.protocol === 'openai') {
    throw new GatewayError('not_found', 'Token counting is not supported for this group.')
  }
  const provider = pickUpstream(route.group.upstreams, runtime.random)
  Object.assign(scope.event, { provider: provider.id, upstreamModel: route.model.upstreamModel })
  let operation: UpstreamOperation = 'gemini-count-tokens'
  let upstreamBody = text
  if (route.group.protocol === 'anthropic') {
    operation = 'count-tokens'
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
  const answer = await callUnmetered(runtime, scope, provider, {
    operation,
    model: route.model.upstreamModel,
    body: upstreamBody,
    headers: buildUpstreamHeaders(scope.request.headers, runtime.forwardHeaders),
  })
  if (operation === 'gemini-count-tokens') {
    return new Response(answer.text, {
      status: answer.status,
      headers: { 'content-type': 'application/json' },
    })
  }
  const parsed = parseJson(answer.text)
  const tokens =
    parsed.ok && isJsonObject(parsed.value) ? finiteNumber(parsed.value['input_tokens']) : undefined
  return Response.json({ totalTokens: tokens ?? 0 })
}
