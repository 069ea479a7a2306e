import type { KeyRecord } from '../auth/key-store'
import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { readTextWithLimit } from '../http/read-body'
import type { Route } from '../routing/resolve-route'
import { ClientGoneError, classifyUpstreamFailure } from '../upstream/classify-failure'
import { yieldToIo } from '../internal/yield-to-io'
import { openExchange } from '../upstream/exchange'
import type { UpstreamOperation, UpstreamProvider } from '../upstream/provider'
import { readUpstreamError } from '../upstream/read-upstream-error'
import { setRequestIdHeaders } from '../upstream/upstream-headers'
import { admit, withRateLimitHeaders } from '../usage/admit'
import { startMeteredRequest } from '../usage/metered-request'
import type { TokenEstimate, TokenUsage } from '../usage/usage-meter'
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
  /** The same estimate split into input and output, for the per-minute token windows. */
  estimate: TokenEstimate
  operation: UpstreamOperation
  body: string
  headers: Headers
  /** A 2xx JSON answer → the client's body and the usage it reports. */
  answerJson(text: string): { body: string; usage: TokenUsage | undefined }
  /** The translator of a streamed answer. */
  translator(): SseTranslator
}

/**
 * Admits, meters and makes one upstream call, and relays its answer: JSON, or SSE through the
 * plan's translator. Every path settles the usage exactly once (ok, error or aborted).
 */
export async function relayCall(
  runtime: GatewayRuntime,
  scope: RequestScope,
  key: KeyRecord,
  plan: CallPlan,
): Promise<Response> {
  const admission = await admit(runtime, scope, key, plan)
  const metered = startMeteredRequest(runtime, scope, admission.reservation, {
    groupId: plan.route.group.id,
    providerId: plan.provider.id,
    model: plan.model,
    upstreamModel: plan.route.model.upstreamModel,
    stream: plan.stream,
  })
  const exchange = openExchange(scope.request.signal, runtime.upstreamTimeoutMs, runtime.now, {
    deadlineMs: plan.stream ? runtime.maxStreamMs : undefined,
  })
  setRequestIdHeaders(plan.headers, scope.requestId)
  try {
    // A client that left while the request waited (key hashing, the meter, a busy loop) is
    // never forwarded upstream, whatever the provider does with an aborted signal; one turn of
    // the event loop first lets a departure the loop has not read yet be seen.
    await yieldToIo()
    exchange.signal.throwIfAborted()
    const upstream = await plan.provider.send({
      operation: plan.operation,
      model: plan.route.model.upstreamModel,
      body: plan.body,
      headers: plan.headers,
      stream: plan.stream,
      signal: exchange.signal,
    })
    if (!upstream.ok) throw await readUpstreamError(upstream, plan.provider.protocol)
    const isEventStream =
      upstream.headers.get('content-type')?.includes('text/event-stream') === true
    if (plan.stream && isEventStream) {
      scope.eventDeferred = true
      const streamed = await relaySse(upstream, {
        exchange,
        metered,
        translator: plan.translator(),
        idleTimeoutMs: runtime.streamIdleTimeoutMs,
        maxStreamMs: runtime.maxStreamMs,
        maxEventBytes: runtime.maxResponseBytes,
        onEnd: (outcome) => scope.complete(200, outcome),
      })
      return withRateLimitHeaders(streamed, scope, admission, runtime.now())
    }
    const text = await readTextWithLimit(upstream.body, runtime.maxResponseBytes)
    exchange.dispose()
    const answer = plan.answerJson(text)
    metered.finish('ok', upstream.status, answer.usage)
    const response = new Response(answer.body, {
      status: upstream.status,
      headers: { 'content-type': 'application/json' },
    })
    return withRateLimitHeaders(response, scope, admission, runtime.now())
  } catch (error) {
    scope.eventDeferred = false
    const failure = classifyUpstreamFailure(error, exchange)
    exchange.dispose()
    metered.finish(
      failure instanceof ClientGoneError ? 'aborted' : 'error',
      GatewayError.isInstance(failure) ? failure.status : 499,
      undefined,
    )
    throw failure
  }
}
