import type { KeyRecord } from '../auth/key-store'
import { GatewayError } from '../errors'
import { jsonContentType, textAnswer, type GatewayAnswer } from '../http/gateway-answer'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import type { Route } from '../routing/resolve-route'
import { ClientGoneError, classifyUpstreamFailure } from '../upstream/classify-failure'
import { yieldToIo } from '../internal/yield-to-io'
import { openExchange } from '../upstream/exchange'
import type { UpstreamOperation, UpstreamProvider } from '../upstream/provider'
import { isEventStream, notAnEventStream, readUpstreamJson } from '../upstream/read-upstream-answer'
import { readUpstreamError } from '../upstream/read-upstream-error'
import { scrubGatewayError } from '../upstream/secret-scrubber'
import { sendUpstream } from '../upstream/upstream-answer'
import { setRequestIdHeaders } from '../upstream/upstream-headers'
import { admit, withRateLimitHeaders } from '../usage/admit'
import { startMeteredRequest } from '../usage/metered-request'
import type { TokenEstimate, TokenUsage } from '../usage/usage-meter'
import type { OutputAllowance } from './output-allowance'
import type { RoutedCall } from './route-call'
import type { CommonPlan } from './translated-plan'
import type { MaybePromise } from '../internal/maybe-promise'
import { attemptVerdict } from '../failover/attempt-verdict'
import { nothingAvailable } from '../failover/nothing-available'
import { isUnavailable, type AttemptVerdict, type Selection } from '../failover/upstream-selector'
import { relaySse } from './relay-sse'
import type { SseTranslator } from './sse-translator'

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

const noneTried: ReadonlySet<string> = new Set()

/**
 * Chooses the upstream of a routed call, plans the call for it, and relays it (`relayPlan`). The
 * selection's verdict is reported exactly once, whatever happens: the attempt's, or `neutral` when
 * the request ended before reaching the upstream (a refusal of the plan or the meter, a client
 * that left).
 */
export async function relayCall(
  runtime: GatewayRuntime,
  scope: RequestScope,
  key: KeyRecord,
  routed: RoutedCall,
  planFor: PlanCall,
): Promise<GatewayAnswer> {
  const choice = runtime.selector.select(routed.route.group, {
    tried: noneTried,
    sessionHint: undefined,
  })
  const selection = choice instanceof Promise ? await choice : choice
  if (isUnavailable(selection)) throw nothingAvailable(selection)
  scope.event.provider = selection.upstream.id
  let verdict: AttemptVerdict = okVerdict
  try {
    const planned = planFor({ ...routed, provider: selection.upstream })
    const plan = planned instanceof Promise ? await planned : planned
    return await relayPlan(runtime, scope, key, plan, selection)
  } catch (error) {
    verdict = attemptVerdict(error)
    throw error
  } finally {
    selection.finish(verdict)
  }
}

const okVerdict: AttemptVerdict = { kind: 'ok' }

/**
 * Admits, meters and makes one upstream call, and relays its answer: JSON, or SSE through the
 * plan's translator. The answer is checked before it is trusted (a 2xx that is not what the
 * protocol sends is a 502), upstream errors are scrubbed of the upstream's secrets, and every
 * path settles the usage exactly once (ok, error or aborted).
 */
async function relayPlan(
  runtime: GatewayRuntime,
  scope: RequestScope,
  key: KeyRecord,
  plan: CallPlan,
  selection: Selection,
): Promise<GatewayAnswer> {
  const admission = await admit(runtime, scope, key, plan)
  const metered = startMeteredRequest(
    runtime,
    scope,
    admission.reservation,
    {
      groupId: plan.route.group.id,
      providerId: plan.provider.id,
      model: plan.model,
      upstreamModel: plan.route.model.upstreamModel,
      stream: plan.stream,
    },
    plan.estimate,
  )
  const exchange = openExchange(scope.request.signal, runtime.upstreamTimeoutMs, runtime.now, {
    deadlineMs: plan.stream ? runtime.maxStreamMs : undefined,
  })
  setRequestIdHeaders(plan.headers, scope.requestId)
  const scrub = runtime.scrubberFor(plan.provider)
  let sent = false
  try {
    // A client that left while the request waited (key hashing, the meter, a busy loop) is
    // never forwarded upstream, whatever the provider does with an aborted signal; one turn of
    // the event loop first lets a departure the loop has not read yet be seen.
    await yieldToIo()
    exchange.signal.throwIfAborted()
    sent = true
    const upstream = await sendUpstream(plan.provider, {
      operation: plan.operation,
      model: plan.route.model.upstreamModel,
      body: plan.body,
      headers: plan.headers,
      stream: plan.stream,
      signal: exchange.signal,
      credential: selection.credential?.index,
    })
    if (!upstream.ok) throw await readUpstreamError(upstream, plan.provider.protocol, scrub)
    if (plan.stream) {
      if (!isEventStream(upstream)) throw notAnEventStream(upstream)
      scope.eventDeferred = true
      const streamed = await relaySse(upstream, {
        exchange,
        metered,
        translator: plan.translator(),
        idleTimeoutMs: runtime.streamIdleTimeoutMs,
        maxStreamMs: runtime.maxStreamMs,
        maxEventBytes: runtime.maxResponseBytes,
        scrub,
        onEnd: (outcome, error) => {
          if (error !== undefined) scope.event.error = { code: error.code, message: error.message }
          scope.complete(200, outcome)
        },
      })
      return withRateLimitHeaders(streamed, scope, admission, runtime.now())
    }
    const json = await readUpstreamJson(upstream, runtime.maxResponseBytes)
    exchange.dispose()
    const answer = plan.answerJson(json.text, json.body)
    metered.finish('ok', upstream.status, answer.usage, 'answered')
    const response = textAnswer(answer.body, upstream.status, jsonContentType)
    return withRateLimitHeaders(response, scope, admission, runtime.now())
  } catch (error) {
    scope.eventDeferred = false
    let failure = classifyUpstreamFailure(error, exchange)
    exchange.dispose()
    if (GatewayError.isInstance(failure)) failure = scrubGatewayError(failure, scrub)
    metered.finish(
      failure instanceof ClientGoneError ? 'aborted' : 'error',
      GatewayError.isInstance(failure) ? failure.status : 499,
      undefined,
      sent ? 'sent' : 'not-sent',
    )
    throw failure
  }
}
