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

/** What a JSON answer becomes for the client. */
export type CallAnswer = { body: string; usage: TokenUsage | undefined }

/**
 * Admits, meters and makes one upstream call, and relays its answer: JSON, or SSE through the
 * plan's translator. The answer is checked before it is trusted (a 2xx that is not what the
 * protocol sends is a 502), upstream errors are scrubbed of the upstream's secrets, and every
 * path settles the usage exactly once (ok, error or aborted).
 */
export async function relayCall(
  runtime: GatewayRuntime,
  scope: RequestScope,
  key: KeyRecord,
  plan: CallPlan,
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
