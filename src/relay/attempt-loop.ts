import { GatewayError } from '../errors'
import { attemptVerdict } from '../failover/attempt-verdict'
import { backoffDelay, waitUnlessAborted } from '../failover/backoff'
import { nextStepAfter } from '../failover/classify-attempt'
import { nothingAvailable } from '../failover/nothing-available'
import { retryPolicyOf, type RetryPolicy } from '../failover/retry-policy'
import { isUnavailable, type Unavailable } from '../failover/upstream-selector'
import type { GatewayAnswer } from '../http/gateway-answer'
import { withUpstreamModel } from '../http/upstream-model-header'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { traceAttempt } from './attempt-telemetry'
import type { UpstreamAttempt } from '../usage/upstream-attempt'
import type { Group } from '../routing/group-registry'
import type { Route } from '../routing/resolve-route'
import { ClientGoneError } from '../upstream/classify-failure'
import { upstreamRetryAfterMs } from '../http/retry-after'
import { withRateLimitHeaders } from './admit'
import { routeEstimateNano, routePricing } from './route-price'
import { planAttempt } from './attempt-admission'
import { attemptCall } from './attempt-call'
import {
  everyTried,
  noOtherUpstream,
  noteFailure,
  okVerdictOf,
  startRecord,
  type LoopState,
} from './attempt-state'
import { fallbackRoutes } from './fallback-plan'
import type { PlanCall } from './call-plan'
import { rerouteCall, type RoutedCall } from './route-call'

const noneTried: ReadonlySet<string> = new Set()
const noRoutes: readonly Route[] = []

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
  scope: AuthedScope,
  routed: RoutedCall,
  planFor: PlanCall,
): Promise<GatewayAnswer> {
  const key = scope.key
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
    soonestResting: undefined,
  }
  try {
    const fallbacks = await fallbacksOf(state, routed)
    const answer = await attemptRoute(state, routed, fallbacks.length === 0, false)
    if (answer !== undefined) return withUpstreamModel(answer, state.details.upstreamModel)
    for (let index = 0; index < fallbacks.length; index += 1) {
      const rerouted = rerouteCall(runtime, routed, fallbacks[index]!)
      const fallback = await attemptRoute(state, rerouted, index === fallbacks.length - 1, false)
      if (fallback !== undefined) return withUpstreamModel(fallback, state.details.upstreamModel)
    }
    // Every candidate rested and none was tried: the one whose rest ends first is tried anyway
    // (Envoy's panic routing), so the client gets an upstream's own answer, not a refusal.
    const soonest = state.soonestResting
    if (state.failure === undefined && soonest !== undefined) {
      const resting = await attemptRoute(state, soonest.routed, true, true)
      if (resting !== undefined) return withUpstreamModel(resting, state.details.upstreamModel)
    }
    throw lastFailure(state)
  } catch (error) {
    const failure = state.failure === undefined ? error : state.failure
    // An error answer is an answer too: its client may retry at once, and must find it settled.
    await state.metered?.finish(
      failure instanceof ClientGoneError ? 'aborted' : 'error',
      GatewayError.isInstance(failure) ? failure.status : 499,
      undefined,
      state.sent ? 'sent' : 'not-sent',
    )
    throw error
  }
}

/**
 * The call's fallback routes: resolved on the first failure only (a call answered at once never
 * looks them up), or already when admission needed them.
 */
async function fallbacksOf(state: LoopState, routed: RoutedCall): Promise<readonly Route[]> {
  const fallbacks = routed.route.model.fallbacks
  if (fallbacks === undefined || fallbacks.length === 0) return noRoutes
  return (state.fallbacks ??= await fallbackRoutes(state.runtime, state.key, routed.route))
}

function lastFailure(state: LoopState): unknown {
  if (state.failure !== undefined) return state.failure
  return nothingAvailable(
    state.unavailable ?? { unavailable: true, retryAfterMs: undefined, reason: 'exhausted' },
    state.details.model,
  )
}

/**
 * The attempts of one route's group. Returns the answer, or `undefined` when the group is
 * exhausted (every upstream tried, the policy's attempts spent, or nothing available); throws
 * when the request must end here: the client's own error, a client that left, a spent budget or
 * deadline.
 *
 * On the last route (`last`: no fallback after it), an upstream that failed retryably is tried
 * again when no other upstream of the group is left, as `retry.attempts` promises: with backoff
 * (or its own `retry-after`, up to `maxRetryAfterMs`) and within the retry budget, and while it
 * rests, since nothing else could serve. `resting`: every candidate rests and this group's
 * soonest is tried anyway.
 */
async function attemptRoute(
  state: LoopState,
  routed: RoutedCall,
  last: boolean,
  resting: boolean,
): Promise<GatewayAnswer | undefined> {
  const { runtime, scope } = state
  const group = routed.route.group
  const policy = retryPolicyOf(group)
  const model = routed.route.model.upstreamModel
  let tried: Set<string> | undefined
  let retrySame: string | undefined
  let retryAfterMs = 0
  let sameUsed = false
  let lone = false
  // What `balancing: "cost"` ranks upstreams by: the call's estimate at the catalogue's price.
  const estimateNano =
    group.balancing === 'cost'
      ? routeEstimateNano(runtime, routed.route, routed.estimate)
      : undefined
  for (let attempt = 0; attempt < policy.attempts; attempt++) {
    if (retrySame === undefined && tried !== undefined && everyTried(group.upstreams, tried)) {
      return undefined
    }
    if (state.attempts.length > 0) await beforeRetry(state, policy, retryAfterMs)
    const choice = runtime.selector.select(group, {
      tried: tried ?? noneTried,
      retrySame,
      sessionHint: routed.sessionHint,
      model,
      resting: resting || lone,
      stream: routed.stream,
      estimateNano,
    })
    const selection = choice instanceof Promise ? await choice : choice
    if (isUnavailable(selection)) {
      state.unavailable = selection
      scope.trace?.note({ kind: 'skipped', group: group.id, reason: selection.reason })
      if (selection.reason === 'circuits-open' && !resting) noteResting(state, routed, selection)
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
    const telemetry =
      scope.trace === undefined ? undefined : traceAttempt(runtime, scope, plan, record)
    const started = runtime.now()
    // A stream holds its upstream until it ends: the selector hears the verdict at the first
    // frame and frees the upstream's slot when this settles.
    let streamEnded: Promise<void> | undefined
    try {
      const answer = await attemptCall({
        runtime,
        scope,
        plan,
        selection,
        metered: state.metered!,
        record,
        onSent: () => (state.sent = true),
        onStream: (ended) => (streamEnded = ended),
        telemetry,
      })
      selection.finish(okVerdictOf(record.durationMs, routed.stream, scope), streamEnded)
      return withRateLimitHeaders(answer, scope, state.admission!, runtime.now())
    } catch (failure) {
      record.durationMs = runtime.now() - started
      const verdict = attemptVerdict(failure)
      selection.finish(verdict)
      noteFailure(record, failure, verdict)
      telemetry?.failed(record)
      state.failure = failure
      if (!(failure instanceof ClientGoneError)) state.sent = false
      const next = nextStepAfter(failure, verdict)
      if (next === 'stop') throw failure
      const wait = GatewayError.isInstance(failure) ? upstreamRetryAfterMs(failure) : undefined
      lone = false
      if (next === 'same' && !sameUsed && (wait ?? 0) <= policy.maxRetryAfterMs) {
        sameUsed = true
        retrySame = selection.upstream.id
        retryAfterMs = wait ?? 0
      } else if (
        last &&
        verdict.kind === 'failed' &&
        (wait ?? 0) <= policy.maxRetryAfterMs &&
        noOtherUpstream(group.upstreams, tried, selection.upstream.id) &&
        sendsWhileResting(group)
      ) {
        // Nothing else can serve: the same upstream again, after its backoff or its retry-after.
        lone = true
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
  if (elapsed + wait > policy.deadlineMs) throw lastFailure(state)
  if (!state.budget.withdraw()) {
    scope.event.retryBudgetExhausted = true
    scope.trace?.note({ kind: 'retry-budget-exhausted', group: state.details.groupId })
    throw lastFailure(state)
  }
  scope.trace?.note({ kind: 'backoff', waitMs: wait, attempt: state.attempts.length })
  if (!(await waitUnlessAborted(wait, scope.request.signal))) {
    state.failure = new ClientGoneError()
    throw state.failure
  }
}

/** Notes a route whose every upstream rests, keeping the one whose rest ends first. */
function noteResting(state: LoopState, routed: RoutedCall, unavailable: Unavailable): void {
  if (!sendsWhileResting(routed.route.group)) return
  const waitMs = unavailable.retryAfterMs ?? Infinity
  const soonest = state.soonestResting
  if (soonest === undefined || waitMs < soonest.waitMs) state.soonestResting = { routed, waitMs }
}

/** False when the group asked to refuse at once while everything rests (`whenAllResting: "refuse"`). */
function sendsWhileResting(group: Group): boolean {
  const breaker = group.circuitBreaker
  return breaker === undefined || breaker === false || breaker.whenAllResting !== 'refuse'
}
