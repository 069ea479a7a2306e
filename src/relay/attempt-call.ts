import { GatewayError } from '../errors'
import type { Selection } from '../failover/upstream-selector'
import { jsonContentType, textAnswer, type GatewayAnswer } from '../http/gateway-answer'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { yieldToIo } from '../internal/yield-to-io'
import type { AttemptTelemetry } from './attempt-telemetry'
import type { UpstreamAttempt } from '../usage/upstream-attempt'
import { classifyUpstreamFailure } from '../upstream/classify-failure'
import { openExchange } from '../upstream/exchange'
import { eventStreamOf } from '../upstream/event-stream'
import { readUpstreamJson } from '../upstream/read-upstream-answer'
import { readUpstreamError } from '../upstream/read-upstream-error'
import { scrubGatewayError } from '../upstream/secret-scrubber'
import { gatewayCall } from '../upstream/call-headers'
import { sendUpstream } from '../upstream/upstream-answer'
import { setRequestIdHeaders } from '../upstream/upstream-headers'
import type { MeteredRequest } from './metered-request'
import type { CallPlan } from './call-plan'
import { relaySse } from './relay-sse'

/** One attempt of a call: what `attemptCall` takes. */
export type AttemptCall = {
  runtime: GatewayRuntime
  scope: RequestScope
  plan: CallPlan
  /** The upstream (and pooled key) the selector chose for this attempt. */
  selection: Selection
  metered: MeteredRequest
  /** The attempt's record in the usage record, kept up to date as the attempt goes. */
  record: UpstreamAttempt
  /** Called once the call is on its way upstream. */
  onSent: () => void
  /** Told, for a stream, of a promise that settles when the stream ends. */
  onStream: (ended: Promise<void>) => void
  /** The attempt's span, when telemetry is on (`traceAttempt`). */
  telemetry?: AttemptTelemetry | undefined
}

/**
 * Makes one attempt of a call on the upstream chosen for it, and relays its answer: JSON, or SSE
 * through the plan's translator (the provider's stream reader first, for an upstream whose stream
 * is not SSE). The answer is checked before it is trusted (a 2xx that is not what the protocol
 * sends is a 502). An answer settles the request's usage (a stream when it ends); a failure
 * settles nothing, since the attempt loop may try again, and is thrown named
 * (`classifyUpstreamFailure`) and scrubbed of the upstream's secrets. Nothing reaches the client
 * before the attempt has an answer for it, so a thrown failure can always be retried.
 *
 * `record` is kept up to date as the attempt goes: its phase and the upstream's status, and, once
 * the attempt answers, its outcome and duration — before the usage settles, since the usage
 * record carries the attempts and a ledger stores them as they are when it is written.
 */
export async function attemptCall(attempt: AttemptCall): Promise<GatewayAnswer> {
  const { runtime, scope, plan, selection, metered, record, onSent, onStream, telemetry } = attempt
  const started = runtime.now()
  const answered = (): void => {
    record.durationMs = runtime.now() - started
    record.outcome = 'answered'
    record.verdict = 'ok'
  }
  const exchange = openExchange(scope.request.signal, runtime.upstreamTimeoutMs, runtime.now, {
    deadlineMs: plan.stream ? runtime.maxStreamMs : undefined,
  })
  setRequestIdHeaders(plan.headers, scope.requestId)
  const scrub = runtime.scrubberFor(plan.provider)
  try {
    // A client that left while the request waited (key hashing, the meter, a busy loop) is
    // never forwarded upstream, whatever the provider does with an aborted signal; one turn of
    // the event loop first lets a departure the loop has not read yet be seen.
    await yieldToIo()
    if (exchange.signal.aborted) throw exchange.signal.reason
    onSent()
    const upstream = await sendUpstream(
      plan.provider,
      // The signal and the `Headers` are built only if a provider reads them: the direct Node
      // path takes the light signal and the header record.
      gatewayCall(
        {
          operation: plan.operation,
          model: plan.route.model.upstreamModel,
          body: plan.body,
          stream: plan.stream,
          credential: selection.credential?.index,
        },
        plan.headers,
        () => exchange.abortSignal,
      ),
      exchange.signal,
    )
    record.status = upstream.status
    record.phase = 'headers'
    if (!upstream.ok) throw await readUpstreamError(upstream, plan.provider, scrub)
    record.phase = 'first-byte'
    if (plan.stream) {
      const events = eventStreamOf(plan.provider, upstream)
      scope.eventDeferred = true
      let ended!: () => void
      const streamEnded = new Promise<void>((resolve) => (ended = resolve))
      const streamed = await relaySse(events, {
        exchange,
        metered,
        translator:
          telemetry === undefined ? plan.translator() : telemetry.watch(plan.translator()),
        idleTimeoutMs: runtime.streamIdleTimeoutMs,
        maxStreamMs: runtime.maxStreamMs,
        maxEventBytes: runtime.maxResponseBytes,
        scrub,
        onEnd: (outcome, error) => {
          ended()
          if (error !== undefined) scope.event.error = { code: error.code, message: error.message }
          telemetry?.streamEnded(record, outcome, error?.code)
          scope.complete(200, outcome)
        },
      })
      onStream(streamEnded)
      scope.event.timeToFirstChunkMs = runtime.now() - scope.startedAt
      answered()
      record.phase = 'stream'
      return streamed
    }
    const json = await readUpstreamJson(upstream, runtime.maxResponseBytes)
    exchange.dispose()
    const answer = plan.answerJson(json.text, json.body)
    answered()
    const settling = metered.finish('ok', upstream.status, answer.usage, 'answered')
    telemetry?.answeredJson(record, json.body, answer.usage)
    // The answer is released once its usage is settled: its client's next request must not find
    // this one still holding its reservation (issue 33, "an answered request is settled").
    if (settling !== undefined) await settling
    return textAnswer(answer.body, upstream.status, jsonContentType)
  } catch (error) {
    scope.eventDeferred = false
    const failure = classifyUpstreamFailure(error, exchange)
    exchange.dispose()
    throw GatewayError.isInstance(failure) ? scrubGatewayError(failure, scrub) : failure
  }
}
