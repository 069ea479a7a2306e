import type { KeyRecord } from '../auth/key-store'
import { GatewayError } from '../errors'
import { attemptVerdict } from '../failover/attempt-verdict'
import { backoffDelay, waitUnlessAborted } from '../failover/backoff'
import { nextStepAfter } from '../failover/classify-attempt'
import { nothingAvailable } from '../failover/nothing-available'
import { retryPolicyOf, type RetryPolicy } from '../failover/retry-policy'
import type { RetryBudget } from '../failover/retry-budget'
import {
  isUnavailable,
  type AttemptVerdict,
  type Selection,
  type Unavailable,
} from '../failover/upstream-selector'
import type { GatewayAnswer } from '../http/gateway-answer'
import { withUpstreamModel } from '../http/upstream-model-header'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import type { UpstreamAttempt } from '../observability/upstream-attempt'
import type { Route } from '../routing/resolve-route'
import { ClientGoneError } from '../upstream/classify-failure'
import { upstreamRetryAfterMs } from '../http/retry-after'
import { admit, withRateLimitHeaders, type Admission } from './admit'
import { startMeteredRequest, type MeteredDetails, type MeteredRequest } from './metered-request'
import type { TokenEstimate } from '../usage/usage-meter'
import {
  hasMoneyBudget,
  refusesUnpriced,
  routeCostEstimate,
  routePricing,
  unpricedModelError,
  type RoutePricing,
} from './route-price'
import { attemptCall } from './attempt-call'
import { fallbackRoutes } from './fallback-plan'
import type { CallPlan, PlanCall } from './call-plan'
import { rerouteCall, type RoutedCall } from './route-call'

const noneTried: ReadonlySet<string> = new Set()
const okVerdict: AttemptVerdict = { kind: 'ok' }
const neutralVerdict: AttemptVerdict = { kind: 'neutral' }

/** The request-wide state of the attempt loop. */
type LoopState = {
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
}

/**
 * Runs a call's attempts until one answers: its group's upstreams as the group's retry policy
 * allows (`retryPolicyOf`), then each fallback route's in turn, translated to its protocol by the
 * handler's `planFor`. Before the first byte reaches the client a failure moves on by its kind
 * (`nextStepAfter`), within the policy's attempts and deadline and the group's retry budget, after
 * a jittered backoff; once an answer has begun, nothing is retried.
 *
 * The request is admitted once (the first plan first, so that a request its protocol refuses is
 * refused before it counts against any limit) and settled once, with the answering attempt's
 * group, upstream and usage, and every attempt listed; an attempt that failed costs nothing.
 * Every selection hears exactly one verdict.
 */
export async function runAttempts(
  runtime: GatewayRuntime,
  scope: RequestScope,
  key: KeyRecord,
  routed: RoutedCall,
  planFor: PlanCall,
): Promise<GatewayAnswer> {
  const primary = routed.route.group
  const budget = runtime.retryBudget(primary.id, retryPolicyOf(primary))
  budget.deposit()
  const attempts: UpstreamAttempt[] = []
  scope.event.attempts = attempts
  const state: LoopState = {
    runtime,
    scope,
    key,
    planFor,
    startedAt: runtime.now(),
    budget,
    attempts,
    fallbacks: undefined,
    admission: undefined,
    metered: undefined,
    details: {
      groupId: primary.id,
      providerId: '',
      model: routed.model,
      upstreamModel: routed.route.model.upstreamModel,
      stream: routed.stream,
      attempts,
    },
    estimate: { ...routed.estimate },
    pricing: routePricing(runtime, routed.route, key),
    sent: false,
    failure: undefined,
    unavailable: undefined,
  }
  try {
    const answer = await attemptRoute(state, routed)
    if (answer !== undefined) return withUpstreamModel(answer, state.details.upstreamModel)
    const fallbacks = (state.fallbacks ??= await fallbackRoutes(runtime, key, routed.route))
    for (const route of fallbacks) {
      const fallback = await attemptRoute(state, rerouteCall(runtime, routed, route))
      if (fallback !== undefined) return withUpstreamModel(fallback, state.details.upstreamModel)
    }
    throw lastFailure(state)
  } catch (error) {
    const failure = state.failure === undefined ? error : state.failure
    state.metered?.finish(
      failure instanceof ClientGoneError ? 'aborted' : 'error',
      GatewayError.isInstance(failure) ? failure.status : 499,
      undefined,
      state.sent ? 'sent' : 'not-sent',
    )
    throw error
  }
}

function lastFailure(state: LoopState): unknown {
  if (state.failure !== undefined) return state.failure
  return nothingAvailable(
    state.unavailable ?? { unavailable: true, retryAfterMs: undefined, reason: 'exhausted' },
  )
}

/**
 * The attempts of one route's group. Returns the answer, or `undefined` when the group is
 * exhausted (every upstream tried, the policy's attempts spent, or nothing available); throws
 * when the request must end here: the client's own error, a client that left, a spent budget or
 * deadline.
 */
async function attemptRoute(
  state: LoopState,
  routed: RoutedCall,
): Promise<GatewayAnswer | undefined> {
  const { runtime, scope } = state
  const group = routed.route.group
  const policy = retryPolicyOf(group)
  let tried: Set<string> | undefined
  let retrySame: string | undefined
  let retryAfterMs = 0
  let sameUsed = false
  for (let attempt = 0; attempt < policy.attempts; attempt++) {
    if (retrySame === undefined && tried !== undefined && everyTried(group.upstreams, tried)) {
      return undefined
    }
    if (state.attempts.length > 0) await beforeRetry(state, policy, retryAfterMs)
    const choice = runtime.selector.select(group, {
      tried: tried ?? noneTried,
      retrySame,
      sessionHint: routed.sessionHint,
    })
    const selection = choice instanceof Promise ? await choice : choice
    if (isUnavailable(selection)) {
      state.unavailable = selection
      if (retrySame === undefined) return undefined
      // The upstream to retry may not be tried now: another one may.
      ;(tried ??= new Set()).add(retrySame)
      retrySame = undefined
      continue
    }
    const plan = await planAttempt(state, routed, selection)
    if (plan === undefined) {
      ;(tried ??= new Set()).add(selection.upstream.id)
      retrySame = undefined
      continue
    }
    const record = startRecord(state, routed, selection)
    const started = runtime.now()
    // A stream holds its upstream until it ends: the selector hears the verdict at the first
    // frame and frees the upstream's slot when this settles.
    let streamEnded: Promise<void> | undefined
    try {
      const answer = await attemptCall(
        runtime,
        scope,
        plan,
        selection,
        state.metered!,
        record,
        () => (state.sent = true),
        (ended) => (streamEnded = ended),
      )
      selection.finish(okVerdict, streamEnded)
      return withRateLimitHeaders(answer, scope, state.admission!, runtime.now())
    } catch (failure) {
      record.durationMs = runtime.now() - started
      const verdict = attemptVerdict(failure)
      selection.finish(verdict)
      noteFailure(record, failure, verdict)
      state.failure = failure
      if (!(failure instanceof ClientGoneError)) state.sent = false
      const next = nextStepAfter(failure, verdict)
      if (next === 'stop') throw failure
      const wait = GatewayError.isInstance(failure) ? upstreamRetryAfterMs(failure) : undefined
      if (next === 'same' && !sameUsed && (wait ?? 0) <= policy.maxRetryAfterMs) {
        sameUsed = true
        retrySame = selection.upstream.id
        retryAfterMs = wait ?? 0
      } else if (verdict.kind === 'rejected-key' && selection.credential !== undefined) {
        // The key was refused, not the upstream: the same upstream again, with another of its
        // keys (the selector has taken this one out of rotation).
        retrySame = selection.upstream.id
        retryAfterMs = 0
      } else {
        ;(tried ??= new Set()).add(selection.upstream.id)
        retrySame = undefined
        retryAfterMs = 0
      }
    }
  }
  return undefined
}

/**
 * The plan of an attempt, with the request admitted and metered before its first attempt. A plan
 * the upstream's protocol refuses ends the request at the first attempt (the client's error); at a
 * later one the upstream is passed over (`undefined`), since the client's request was fine for
 * the first. A refusal of the meter ends the request. The selection hears `neutral` either way.
 */
async function planAttempt(
  state: LoopState,
  routed: RoutedCall,
  selection: Selection,
): Promise<CallPlan | undefined> {
  let plan: CallPlan
  try {
    const planned = state.planFor({ ...routed, provider: selection.upstream })
    plan = planned instanceof Promise ? await planned : planned
    if (state.admission === undefined) await admitRequest(state, routed)
  } catch (error) {
    selection.finish(neutralVerdict)
    if (state.metered === undefined) throw error
    return undefined
  }
  return plan
}

/**
 * Admits the request once, for the most any of its routes may use — tokens and money apart, each
 * at its most — and starts its metering. A key with a money budget is refused a model that has no
 * price, unless the config allows unpriced models.
 */
async function admitRequest(state: LoopState, routed: RoutedCall): Promise<void> {
  const { runtime, scope, key } = state
  if (refusesUnpriced(runtime, routed.route, key)) throw unpricedModelError(routed.route)
  const fallbacks = routed.route.model.fallbacks
  let reserve = { estimatedTokens: routed.estimatedTokens, estimate: routed.estimate }
  // Only money budgets hold a cost: a key without one spends nothing on estimating it.
  const budgeted = hasMoneyBudget(key)
  let costNano = budgeted ? routeCostEstimate(runtime, routed.route, key, routed.estimate) : 0
  if (fallbacks !== undefined && fallbacks.length > 0) {
    // A fallback model may be allowed a longer output, or cost more, than the call's own: hold
    // the most.
    state.fallbacks = await fallbackRoutes(runtime, key, routed.route)
    for (const route of state.fallbacks) {
      const other = rerouteCall(runtime, routed, route)
      if (other.estimatedTokens > reserve.estimatedTokens) reserve = other
      if (budgeted) {
        costNano = Math.max(costNano, routeCostEstimate(runtime, route, key, other.estimate))
      }
    }
  }
  const estimate = costNano > 0 ? { ...reserve.estimate, costNano } : reserve.estimate
  state.admission = await admit(runtime, scope, key, { ...reserve, estimate })
  state.metered = startMeteredRequest(
    runtime,
    scope,
    state.admission.reservation,
    state.details,
    state.estimate,
    state.pricing,
  )
}

/**
 * The gate before every attempt but a request's first: the deadline, the group's retry budget,
 * then the backoff (or the upstream's own `retry-after`, for a retry of the same upstream).
 *
 * @throws the last failure when the deadline or the budget is spent; `ClientGoneError` when the
 *   client leaves during the wait
 */
async function beforeRetry(state: LoopState, policy: RetryPolicy, retryAfterMs: number) {
  const { runtime, scope } = state
  const elapsed = runtime.now() - state.startedAt
  const wait = Math.max(retryAfterMs, backoffDelay(state.attempts.length, policy, runtime.random))
  if (elapsed + wait > policy.deadlineMs || !state.budget.withdraw()) throw lastFailure(state)
  if (!(await waitUnlessAborted(wait, scope.request.signal))) {
    state.failure = new ClientGoneError()
    throw state.failure
  }
}

function everyTried(upstreams: readonly { id: string }[], tried: ReadonlySet<string>): boolean {
  for (const upstream of upstreams) if (!tried.has(upstream.id)) return false
  return true
}

/** Notes a new attempt in the request's record and event, as the one that may answer. */
function startRecord(state: LoopState, routed: RoutedCall, selection: Selection): UpstreamAttempt {
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
  scope.event.group = group
  scope.event.provider = upstream
  scope.event.upstreamModel = details.upstreamModel
  return record
}

function noteFailure(record: UpstreamAttempt, failure: unknown, verdict: AttemptVerdict): void {
  record.verdict = verdict.kind
  if (failure instanceof ClientGoneError) {
    record.outcome = 'aborted'
    return
  }
  if (!GatewayError.isInstance(failure)) return
  record.error = failure.code
  if (failure.upstream?.status !== undefined) record.status = failure.upstream.status
}
