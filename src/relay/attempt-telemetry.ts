import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import type { CallPlan } from './call-plan'
import type { SseTranslator } from '../canonical/sse-translator'
import type { TokenUsage, UsageOutcome } from '../usage/usage-meter'
import { createStreamFactsWatch, jsonAnswerFacts } from '../observability/answer-facts'
import type { AttemptTrace } from '../observability/telemetry-hooks'
import type { UpstreamAttempt } from '../usage/upstream-attempt'

/**
 * The telemetry of one upstream attempt, as the attempt loop and `attemptCall` report it: its
 * span starts here, with the plan's `traceparent` pointing at it, and ends with the attempt (a
 * stream when it ends). Made only when the request has a trace (`telemetry` on).
 */
export type AttemptTelemetry = {
  /** The stream's translator, watched for the answer's id, model and finish reasons. */
  watch(translator: SseTranslator): SseTranslator
  /** A JSON answer was relayed. */
  answeredJson(
    record: UpstreamAttempt,
    body: Record<string, unknown>,
    usage: TokenUsage | undefined,
  ): void
  /** The stream was relayed to its end, however it ended. */
  streamEnded(record: UpstreamAttempt, outcome: UsageOutcome, error: string | undefined): void
  /** The attempt failed before any answer (the loop has noted how in `record`). */
  failed(record: UpstreamAttempt): void
}

/** Starts an attempt's telemetry, or `undefined` without telemetry (nothing else is done). */
export function traceAttempt(
  runtime: GatewayRuntime,
  scope: RequestScope,
  plan: CallPlan,
  record: UpstreamAttempt,
): AttemptTelemetry | undefined {
  const trace = scope.trace
  if (trace === undefined) return undefined
  const span: AttemptTrace = trace.startAttempt({
    record,
    operation: plan.operation,
    protocol: plan.provider.protocol,
    upstreamModel: plan.route.model.upstreamModel,
    stream: plan.stream,
  })
  // The upstream call is a child of the attempt's span, not of the client's.
  if (span.traceparent !== undefined) plan.headers.set('traceparent', span.traceparent)
  const started = runtime.now()
  const watch = createStreamFactsWatch()
  let firstChunkMs: number | undefined
  return {
    watch(translator) {
      const push = translator.push.bind(translator)
      translator.push = (message) => {
        firstChunkMs ??= runtime.now() - started
        watch.see(message)
        return push(message)
      }
      return translator
    },
    answeredJson(record, body, usage) {
      span.end(record, { ...jsonAnswerFacts(plan.provider.protocol, body), usage })
    },
    streamEnded(record, outcome, error) {
      // A stream may end with the first frame, before the attempt was noted as answered.
      const settled: UpstreamAttempt =
        outcome === 'ok' && record.outcome === 'failed'
          ? { ...record, outcome: 'answered', verdict: 'ok' }
          : record
      const reasons = watch.finishReasons
      // A generation that ended abnormally ends in `error`, as the conventions ask.
      const finishReasons = outcome === 'ok' ? reasons : [...reasons, 'error']
      span.end(settled, {
        ...watch.facts,
        finishReasons,
        usage: scope.event.estimated === true ? undefined : scope.event.usage,
        timeToFirstChunkMs: firstChunkMs,
        error: error ?? (outcome === 'aborted' ? 'aborted' : undefined),
      })
    },
    failed(record) {
      span.end(record, {})
    },
  }
}
