import type { MaybePromise } from '../internal/maybe-promise'
import type { Route } from '../routing/resolve-route'
import type { UpstreamOperation, UpstreamProvider } from '../upstream/provider'
import type { TokenEstimate, TokenUsage } from '../usage/usage-meter'
import type { OutputAllowance } from './output-allowance'
import type { SseTranslator } from './sse-translator'
import type { CommonPlan } from './translated-plan'

/** One upstream call, planned by a handler: what to send, and how to turn the answer around. */
export type CallPlan = {
  route: Route
  provider: UpstreamProvider
  /** The call name the client sent. */
  model: string
  stream: boolean
  estimatedTokens: number
  /**
   * The same estimate split: the body's input estimate, and the output allowance (the per-minute
   * token windows take each part; a call with no usage reported is settled from it).
   */
  estimate: TokenEstimate
  /** The output limit sent where a protocol requires one, and reserved as `estimate.outputTokens`. */
  output: OutputAllowance
  operation: UpstreamOperation
  body: string
  headers: Headers
  /**
   * A checked 2xx JSON answer (its text as sent, and the object it parses to) → the client's
   * body and the usage it reports.
   */
  answerJson(text: string, body: Record<string, unknown>): CallAnswer
  /** The translator of a streamed answer. */
  translator(): SseTranslator
}

/**
 * Builds the plan of a call for the upstream chosen for it (`common.provider`): passthrough to an
 * upstream of the client's protocol, else translated. It may refuse what only that upstream's
 * protocol cannot serve (a `GatewayError`, the client's).
 */
export type PlanCall = (common: CommonPlan) => MaybePromise<CallPlan>

/** What a JSON answer becomes for the client. */
export type CallAnswer = { body: string; usage: TokenUsage | undefined }

/**
 * Relays a routed call: its attempts on the upstreams of its group and of its fallbacks, until one
 * answers (see `runAttempts`). Each upstream chosen gets the plan `planFor` makes for it.
 */
export { runAttempts as relayCall } from './attempt-loop'
