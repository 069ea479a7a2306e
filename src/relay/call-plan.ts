/**
 * The relay's plan types: what a handler hands the relay for one upstream call. They live apart
 * from `relay-call.ts` so that the attempt loop and the planners can name them without importing
 * the entry point that imports them back (docs/architecture.md › Layers).
 */
import type { MaybePromise } from '../internal/maybe-promise'
import type { Route } from '../routing/resolve-route'
import type { UpstreamOperation, UpstreamProvider } from '../upstream/provider'
import type { TokenEstimate, TokenUsage } from '../usage/usage-meter'
import type { OutputAllowance } from './output-allowance'
import type { SseTranslator } from '../canonical/sse-translator'

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

/** The parts of a plan that do not depend on translation. */
export type CommonPlan = Pick<
  CallPlan,
  'route' | 'provider' | 'model' | 'stream' | 'estimatedTokens' | 'estimate' | 'output'
>
