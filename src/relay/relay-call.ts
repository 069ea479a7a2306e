export type { CallAnswer, CallPlan, CommonPlan, PlanCall } from './call-plan'

/**
 * Relays a routed call: its attempts on the upstreams of its group and of its fallbacks, until one
 * answers (see `runAttempts`). Each upstream chosen gets the plan `planFor` makes for it.
 */
export { runAttempts as relayCall } from './attempt-loop'
