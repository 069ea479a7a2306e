import { GatewayError } from '../errors'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { parseClientJson, readModelField, scanClientJson } from '../http/client-json'
import { validateBody } from '../http/validate-body'
import { anthropicPassthroughBody } from '../protocols/anthropic/passthrough-body'
import {
  anthropicArrayLimits,
  anthropicCountTokensRequestSchema,
} from '../protocols/anthropic/request-schema'
import { sessionHintOf } from '../failover/session-hint'
import { callThroughChain, type CallFacts } from '../relay/call-chain'
import { callUnmetered, type UnmeteredCall } from '../relay/call-unmetered'
import { resolveCall } from '../relay/route-call'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import { anthropicPassthroughHeaders } from './messages'
import { jsonContentType, textAnswer, type GatewayAnswer } from '../http/gateway-answer'
import type { RouteDefinition } from './route-definition'

/**
 * `POST /v1/messages/count_tokens`, also with `?beta=true`. On an `anthropic` group it is
 * forwarded upstream and answers `{"input_tokens": N}`. On any other group it answers 404
 * `not_found_error`: a local decision made before any upstream call, so it can never count as an
 * upstream failure, nor open a circuit. Counting uses no tokens, so it is not metered.
 */
export async function handleCountTokens(
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<GatewayAnswer> {
  const scanned = scanClientJson(await scope.request.text(runtime.maxBodyBytes))
  const model = readModelField(scanned)
  const route = await resolveCall(runtime, scope, model)
  const json = parseClientJson(scanned)
  if (route.group.protocol !== 'anthropic') {
    throw new GatewayError('not_found', 'Token counting is not supported for this group.')
  }
  validateBody(json.value, anthropicCountTokensRequestSchema, anthropicArrayLimits)
  const upstreamBody = anthropicPassthroughBody(json, route.model.upstreamModel)
  const facts = { route, model, stream: false, protocol: 'anthropic' as const, body: json.value }
  return callThroughChain(runtime, scope, facts, countUpstream, {
    operation: 'count-tokens',
    model: route.model.upstreamModel,
    body: upstreamBody,
    headers: buildUpstreamHeaders(scope.request.headers, [
      ...runtime.forwardHeaders,
      ...anthropicPassthroughHeaders,
    ]),
    sessionHint: sessionHintOf(
      'anthropic',
      json.value,
      scope.request.headers,
      route.group.sessionAffinity,
    ),
  })
}

/** The count, from the group's upstreams: Anthropic's answer as it is. */
async function countUpstream(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  facts: CallFacts,
  call: UnmeteredCall & { sessionHint: string | undefined },
): Promise<GatewayAnswer> {
  const answer = await callUnmetered(runtime, scope, facts.route.group, call, call.sessionHint)
  return textAnswer(answer.text, answer.status, jsonContentType)
}

/** `POST /v1/messages/count_tokens`. */
export const countTokensRoutes: readonly RouteDefinition[] = [
  {
    name: 'count_tokens',
    method: 'POST',
    paths: ['/v1/messages/count_tokens'],
    errors: 'anthropic',
    handler: handleCountTokens,
  },
]
