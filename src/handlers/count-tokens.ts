import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { parseClientJson, readModelField, scanClientJson } from '../http/client-json'
import { validateBody } from '../http/validate-body'
import { anthropicPassthroughBody } from '../protocols/anthropic/passthrough-body'
import {
  anthropicArrayLimits,
  anthropicCountTokensRequestSchema,
} from '../protocols/anthropic/request-schema'
import { sessionHintOf } from '../failover/session-hint'
import { callUnmetered } from '../relay/call-unmetered'
import { resolveCall } from '../relay/route-call'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import { anthropicPassthroughHeaders } from './messages'
import { jsonContentType, textAnswer, type GatewayAnswer } from '../http/gateway-answer'

/**
 * `POST /v1/messages/count_tokens` (spec §4 rule 1, §7), also with `?beta=true`. On an `anthropic`
 * group it is forwarded upstream and answers `{"input_tokens": N}`. On any other group it answers
 * 404 `not_found_error`: a local decision made before any upstream call, so it can never count as
 * an upstream failure (gateway-landscape §D.5). Counting uses no tokens, so it is not metered.
 */
export async function handleCountTokens(
  runtime: GatewayRuntime,
  scope: RequestScope,
): Promise<GatewayAnswer> {
  const scanned = scanClientJson(await scope.request.text(runtime.maxBodyBytes))
  const route = await resolveCall(runtime, scope, readModelField(scanned))
  const json = parseClientJson(scanned)
  if (route.group.protocol !== 'anthropic') {
    throw new GatewayError('not_found', 'Token counting is not supported for this group.')
  }
  validateBody(json.value, anthropicCountTokensRequestSchema, anthropicArrayLimits)
  const upstreamBody = anthropicPassthroughBody(json, route.model.upstreamModel)
  const answer = await callUnmetered(
    runtime,
    scope,
    route.group,
    {
      operation: 'count-tokens',
      model: route.model.upstreamModel,
      body: upstreamBody,
      headers: buildUpstreamHeaders(scope.request.headers, [
        ...runtime.forwardHeaders,
        ...anthropicPassthroughHeaders,
      ]),
    },
    sessionHintOf('anthropic', json.value, scope.request.headers, route.group.sessionAffinity),
  )
  return textAnswer(answer.text, answer.status, jsonContentType)
}
