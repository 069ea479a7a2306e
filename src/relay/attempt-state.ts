import type { KeyRecord } from '../auth/key-store'
import type { RetryBudget } from '../failover/retry-budget'
import type { AttemptVerdict, Selection, Unavailable } from '../failover/upstream-selector'
import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import type { UpstreamAttempt } from '../usage/upstream-attempt'
import { routePricing, upstreamSurcharge, type RoutePricing } from './route-price'
import type { Route } from '../routing/resolve-route'
import { ClientGoneError } from '../upstream/classify-failure'
import type { Admission } from './admit'
import type { MeteredDetails, MeteredRequest } from './metered-request'
import type { TokenEstimate } from '../usage/usage-meter'
import type { PlanCall } from './call-plan'
import type { RoutedCall } from './route-call'

/** The request-wide state of the attempt loop. */
export type LoopState = {
  readonly runtime: GatewayRuntime
  readonly scope: RequestScope
  readonly key: KeyRecord
  readonly planFor: PlanCall
  readonly startedAt: number
  readonly budget: RetryBudget
  readonly attempts: UpstreamAttempt[]
  /** The routes after the call's own: its fallbacks, resolved on first need. */
  fallbacks: readonly Route[] | undefined
  admission: Admission | undefined
  metered: MeteredRequest | undefined
  /** The usage record's details, the estimate it settles with and its price: the answering route's. */
  details: MeteredDetails
  estimate: TokenEstimate
  pricing: RoutePricing
  /**
   * Whether the last attempt went upstream and may have cost something: true while it is out,
   * and when the client left during it; false once it failed, since an upstream that refused or
   * never answered bills nothing (`settledUsage`).
   */
  sent: boolean
  /** The last attempt's failure: what the client gets when no attempt answers. */
  failure: unknown
  /** Why the last group had nothing to try, when no attempt was made there. */
  unavailable: Unavailable | undefined
  /**
   * The route whose group rests soonest, of those that had nothing to try because every upstream
   * rested (and whose group sends anyway, `whenAllResting: "try-soonest"`), with its wait.
   */
  soonestResting: { routed: RoutedCall; waitMs: number } | undefined
}

/** Notes a new attempt in the request's record and event, as the one that may answer. */
export function startRecord(
  state: LoopState,
  routed: RoutedCall,
  selection: Selection,
): UpstreamAttempt {
  const { scope, details } = state
  const group = routed.route.group.id
  const upstream = selection.upstream.id
  const record: UpstreamAttempt = {
    group,
    upstream,
    phase: 'connect',
    outcome: 'failed',
    verdict: 'neutral',
    durationMs: 0,
  }
  if (selection.credential !== undefined) record.credential = selection.credential.masked
  if (selection.resting === true) record.resting = true
  const choice = selection.choice
  if (choice !== undefined) {
    record.tier = choice.tier
    record.strategy = choice.strategy
    if (choice.score !== undefined) record.score = choice.score
  }
  state.attempts.push(record)
  details.groupId = group
  details.providerId = upstream
  details.upstreamModel = routed.route.model.upstreamModel
  state.estimate.inputTokens = routed.estimate.inputTokens
  state.estimate.outputTokens = routed.estimate.outputTokens
  // An answer is charged at the price of the model that gave it (a fallback's, when one answers).
  const pricing = routePricing(state.runtime, routed.route, state.key)
  state.pricing.price = pricing.price
  state.pricing.multiplier = pricing.multiplier
  state.pricing.surcharge = upstreamSurcharge(selection.upstream, routed.route)
  scope.event.group = group
  scope.event.provider = upstream
  scope.event.upstreamModel = details.upstreamModel
  return record
}

export function noteFailure(
  record: UpstreamAttempt,
  failure: unknown,
  verdict: AttemptVerdict,
): void {
  record.verdict = verdict.kind
  if (failure instanceof ClientGoneError) {
    record.outcome = 'aborted'
    return
  }
  if (!GatewayError.isInstance(failure)) return
  record.error = failure.code
  if (failure.upstream?.status !== undefined) record.status = failure.upstream.status
}

/**
 * A success's verdict, with what the selector's latency measure takes: the time to the answer (a
 * stream's first event) and, for a JSON answer, the output tokens the upstream reported.
 */
export function okVerdictOf(
  elapsedMs: number,
  stream: boolean,
  scope: { readonly event: RequestScope['event'] },
): Extract<AttemptVerdict, { kind: 'ok' }> {
  const event = scope.event
  const outputTokens = stream || event.estimated === true ? undefined : event.usage?.outputTokens
  return { kind: 'ok', elapsedMs, stream, outputTokens }
}

/** True when every upstream of the group but `current` has been tried (or there is no other). */
export function noOtherUpstream(
  upstreams: readonly { id: string }[],
  tried: ReadonlySet<string> | undefined,
  current: string,
): boolean {
  for (const upstream of upstreams) {
    if (upstream.id !== current && (tried === undefined || !tried.has(upstream.id))) return false
  }
  return true
}

/** True when every upstream of the group has been tried. */
export function everyTried(
  upstreams: readonly { id: string }[],
  tried: ReadonlySet<string>,
): boolean {
  for (const upstream of upstreams) if (!tried.has(upstream.id)) return false
  return true
}
