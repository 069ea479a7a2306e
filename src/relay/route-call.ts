import { noteBodyEndUser } from './end-user'
import type { AuthedScope, GatewayRuntime, RequestScope } from '../gateway-runtime'
import { sessionHintOf } from '../failover/session-hint'
import type { ProtocolName } from '../protocols/protocol-name'
import { resolveRoute, type Route } from '../routing/resolve-route'
import type { TokenEstimate, TokenUsage } from '../usage/usage-meter'
import { estimateTokens } from '../usage/estimate-tokens'
import { outputAllowance, type OutputAllowance } from './output-allowance'
import type { CallAnswer, CallPlan } from './call-plan'
import { setStringMember } from '../internal/set-string-member'

/**
 * The first step of every call: the call name resolved to a group, before the body is validated,
 * so that a call to an unknown model is answered 404 without walking a large body.
 */
export async function resolveCall(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  model: string,
): Promise<Route> {
  scope.event.model = model
  const route = await resolveRoute(runtime.registry, scope.key, model, runtime.groupIdRouting)
  scope.event.group = route.group.id
  scope.event.upstreamModel = route.model.upstreamModel
  return route
}

/** A generation call routed and estimated, before an upstream is chosen for it. */
export type RoutedCall = Pick<
  CallPlan,
  'route' | 'model' | 'stream' | 'estimatedTokens' | 'estimate' | 'output'
> & {
  /** The request's session hint, when its group has session affinity (never logged). */
  sessionHint: string | undefined
  /** The client's protocol and its validated body, as the call's interceptors see them. */
  protocol: ProtocolName
  body: unknown
}

/**
 * The next step of every generation call, once the body is valid: estimate the call: the body's
 * input estimate, and the output allowance (the request's own limit, else the route's default
 * output limit), which is also what a protocol that requires a limit is sent; and read its session
 * hint, for a group with session affinity. The upstream is chosen by the relay, attempt by
 * attempt.
 */
export function routeCall(
  runtime: GatewayRuntime,
  scope: RequestScope,
  route: Route,
  call: {
    model: string
    stream: boolean
    text: string
    maxOutputTokens: number | undefined
    /** The client's protocol and its checked body, where the session hint is read. */
    protocol: ProtocolName
    body: unknown
  },
): RoutedCall {
  scope.event.stream = call.stream
  noteBodyEndUser(scope, call.protocol, call.body)
  return {
    route,
    model: call.model,
    stream: call.stream,
    protocol: call.protocol,
    body: call.body,
    sessionHint: sessionHintOf(
      call.protocol,
      call.body,
      scope.request.headers,
      route.group.sessionAffinity,
    ),
    ...estimateCall(call.text, outputAllowance(call.maxOutputTokens, route, runtime)),
  }
}

/**
 * The same call sent along another route (a fallback): the output allowance is that route's —
 * the client's own limit when it set one, else the fallback model's default — and so is the
 * estimate's output part.
 */
export function rerouteCall(runtime: GatewayRuntime, routed: RoutedCall, route: Route): RoutedCall {
  const requested = routed.output.requested ? routed.output.limit : undefined
  const output = outputAllowance(requested, route, runtime)
  const estimate = { inputTokens: routed.estimate.inputTokens, outputTokens: output.reserve }
  return {
    ...routed,
    route,
    output,
    estimate,
    estimatedTokens: estimate.inputTokens + estimate.outputTokens,
  }
}

/**
 * What a call is expected to use: the body's estimate as input, the output allowance as output.
 * Budgets hold the total; the per-minute input and output windows each take their part.
 */
function estimateCall(
  text: string,
  output: OutputAllowance,
): { estimatedTokens: number; estimate: TokenEstimate; output: OutputAllowance } {
  const estimate = { inputTokens: estimateTokens(text), outputTokens: output.reserve }
  return { estimatedTokens: estimate.inputTokens + estimate.outputTokens, estimate, output }
}

/**
 * The answer of a passthrough JSON call: the upstream's bytes go back as they are, but for the
 * model it names (`modelMember`: `model`, Gemini's `modelVersion`), set to the call name the client
 * sent (ADR 0019); the usage is read from the named top-level member (`usage`, `usageMetadata`) of
 * the checked body.
 */
export function passthroughJsonAnswer(
  text: string,
  body: Record<string, unknown>,
  member: string,
  readUsage: (value: unknown) => TokenUsage | undefined,
  named: { modelMember: string; callName: string },
): CallAnswer {
  // Own members only: an upstream body is no lookup table for inherited ones.
  const value: unknown = Object.getOwnPropertyDescriptor(body, member)?.value
  return {
    body: setStringMember(text, [named.modelMember], named.callName),
    usage: value === undefined ? undefined : readUsage(value),
  }
}
