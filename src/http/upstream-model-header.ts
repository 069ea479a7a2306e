import type { GatewayAnswer } from './gateway-answer'
import { headerText } from './header-text'

/**
 * The header that names the model the gateway asked the upstream for, while the answer's own
 * `model` names the model the client called (ADR 0019).
 */
export const upstreamModelHeader = 'x-gateway-upstream-model'

/**
 * Sets the upstream model on an upstream's answer: the `upstreamModel` of the route that answered,
 * a fallback's after failover — what the request's event and the ledger record as well.
 */
export function withUpstreamModel(answer: GatewayAnswer, upstreamModel: string): GatewayAnswer {
  answer.headers.set(upstreamModelHeader, headerText(upstreamModel))
  return answer
}
