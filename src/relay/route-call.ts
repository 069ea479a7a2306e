import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { parseJson } from '../internal/json'
import { findTopLevelMembers } from '../internal/json-members'
import { pickUpstream } from '../routing/pick-upstream'
import { resolveRoute, type Route } from '../routing/resolve-route'
import type { TokenEstimate, TokenUsage } from '../usage/usage-meter'
import { estimateTokens } from '../usage/estimate-tokens'
import type { CommonPlan } from './translated-plan'

/**
 * The first step of every call: the call name resolved to a group, before the body is validated,
 * so that a call to an unknown model is answered 404 without walking a large body.
 */
export async function resolveCall(
  runtime: GatewayRuntime,
  scope: RequestScope,
  model: string,
): Promise<Route> {
  scope.event.model = model
  const route = await resolveRoute(runtime.registry, scope.key!, model, runtime.groupIdRouting)
  scope.event.group = route.group.id
  scope.event.upstreamModel = route.model.upstreamModel
  return route
}

/**
 * The next steps of every generation call, once the body is valid: pick an upstream of the
 * route's group, note it in the request's event, and estimate the tokens to reserve (the body's
 * estimate plus the requested output limit).
 */
export function routeCall(
  runtime: GatewayRuntime,
  scope: RequestScope,
  route: Route,
  call: { model: string; stream: boolean; text: string; maxOutputTokens: number | undefined },
): CommonPlan {
  scope.event.stream = call.stream
  const provider = pickUpstream(route.group.upstreams, runtime.random)
  scope.event.provider = provider.id
  return {
    route,
    provider,
    model: call.model,
    stream: call.stream,
    ...estimateCall(call.text, call.maxOutputTokens),
  }
}

/**
 * What a call is expected to use: the body's estimate as input, the requested output limit as
 * output. Budgets hold the total; the per-minute input and output windows each take their part.
 */
function estimateCall(
  text: string,
  maxOutputTokens: number | undefined,
): { estimatedTokens: number; estimate: TokenEstimate } {
  const estimate = { inputTokens: estimateTokens(text), outputTokens: maxOutputTokens ?? 0 }
  return { estimatedTokens: estimate.inputTokens + estimate.outputTokens, estimate }
}

/**
 * The usage of a passthrough JSON answer, read without decoding the whole body: only the named
 * top-level member (`usage`, `usageMetadata`) is located and parsed; the body goes back as it is.
 */
export function passthroughJsonAnswer(
  answer: string,
  member: string,
  readUsage: (value: unknown) => TokenUsage | undefined,
): { body: string; usage: TokenUsage | undefined } {
  const span = findTopLevelMembers(answer)?.members.get(member)
  const parsed =
    span === undefined ? undefined : parseJson(answer.slice(span.valueStart, span.valueEnd))
  return { body: answer, usage: parsed?.ok === true ? readUsage(parsed.value) : undefined }
}
