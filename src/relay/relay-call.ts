import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import type { GatewayAnswer } from '../http/gateway-answer'
import { callThroughChain } from './call-chain'
import { cachedAttempts } from './cached-call'
import type { PlanCall } from './call-plan'
import type { RoutedCall } from './route-call'

export type { CallAnswer, CallPlan, CommonPlan, PlanCall } from './call-plan'

/**
 * Relays a routed call through the config's interceptors (`callThroughChain`), then the response
 * cache of its group, when it has one (`cachedAttempts`), then its attempts
 * on the upstreams of its group and of its fallbacks, until one answers (see `runAttempts`). Each
 * upstream chosen gets the plan `planFor` makes for it.
 */
export function relayCall(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  routed: RoutedCall,
  planFor: PlanCall,
): Promise<GatewayAnswer> {
  return callThroughChain(runtime, scope, routed, cachedAttempts, planFor)
}
