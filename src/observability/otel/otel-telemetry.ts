import type * as OtelApi from '@opentelemetry/api'
import type { GatewayRequest } from '../../http/gateway-request'
import type { UpstreamHealth } from '../../failover/upstream-selector'
import {
  genAiOperationOfCall,
  genAiOperationOfRoute,
  genAiProviderName,
} from '../gen-ai-conventions'
import type { RequestEvent } from '../request-event'
import type {
  AttemptResult,
  AttemptStart,
  AttemptTrace,
  RequestNote,
  RequestTrace,
  ToolStart,
  ToolTrace,
  Telemetry,
} from '../telemetry-hooks'
import type { TelemetryOption } from '../telemetry-option'
import { formatTraceparent, parseTraceparent } from '../trace-context'
import type { UpstreamAttempt } from '../../usage/upstream-attempt'
import { usageAttributes } from './span-attributes'
import { createOtelMetrics } from './otel-metrics'

/** The instrumentation scope of the gateway's tracer and meter. */
const instrumentationScope = 'model-gateway'

/**
 * The OpenTelemetry back end of `telemetry`: a SERVER span per client request (a child of the
 * client's `traceparent`), a CLIENT span per upstream attempt under it, both ended when the answer
 * is complete (a stream when it ends), and the metrics of `createOtelMetrics`. Parents are passed
 * explicitly, so spans nest with or without a context manager (Workers have none by default).
 */
export function createOtelTelemetry(
  api: typeof OtelApi,
  option: TelemetryOption,
  health: () => Promise<readonly UpstreamHealth[]>,
  now: () => number,
): Telemetry {
  const given = typeof option === 'object' ? option : {}
  const tracerProvider = (given.tracerProvider ??
    api.trace.getTracerProvider()) as OtelApi.TracerProvider
  const meterProvider = (given.meterProvider ??
    api.metrics.getMeterProvider()) as OtelApi.MeterProvider
  const tracer = tracerProvider.getTracer(instrumentationScope)
  const metrics = createOtelMetrics(meterProvider.getMeter(instrumentationScope), health)
  const { SpanKind, SpanStatusCode, ROOT_CONTEXT } = api

  function parentOf(request: GatewayRequest): OtelApi.Context {
    const parent = parseTraceparent(request.headers.get('traceparent'))
    if (parent === undefined) return ROOT_CONTEXT
    return api.trace.setSpanContext(ROOT_CONTEXT, { ...parent, isRemote: true })
  }

  return {
    startRequest(request) {
      const span = tracer.startSpan(
        request.method,
        {
          kind: SpanKind.SERVER,
          attributes: { 'http.request.method': request.method },
        },
        parentOf(request),
      )
      const context = api.trace.setSpan(ROOT_CONTEXT, span)
      const ids = span.spanContext()
      const valid = api.trace.isSpanContextValid(ids)
      metrics.requestStarted()
      const trace: RequestTrace = {
        traceId: valid ? ids.traceId : undefined,
        spanId: valid ? ids.spanId : undefined,
        startAttempt(start) {
          return startAttempt(start, context)
        },
        startTool(start) {
          return startTool(start, context)
        },
        note(note) {
          noteOnSpan(span, note)
          metrics.note(note)
        },
        end(event) {
          endRequestSpan(span, event)
          metrics.requestEnded(event)
        },
      }
      return trace
    },
  }

  /**
   * An MCP tool call's span, after the GenAI conventions for tool execution: `execute_tool
   * {gen_ai.tool.name}`, INTERNAL; arguments and results are opt-in there and never set here.
   */
  function startTool(start: ToolStart, parent: OtelApi.Context): ToolTrace {
    const span = tracer.startSpan(
      `execute_tool ${start.tool}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': start.tool,
          'gen_ai.tool.type': 'extension',
          'gen_ai.tool.call.id': start.callId,
          'mcp.method.name': 'tools/call',
          'model_gateway.mcp.server': start.server,
        },
      },
      parent,
    )
    let ended = false
    return {
      end(result) {
        if (ended) return
        ended = true
        if (result.error !== undefined) {
          span.setAttribute('error.type', result.error)
          span.setStatus({ code: SpanStatusCode.ERROR, message: result.error })
        }
        span.end()
      },
    }
  }

  function startAttempt(start: AttemptStart, parent: OtelApi.Context): AttemptTrace {
    const operation = genAiOperationOfCall(start.operation)
    const provider = genAiProviderName(start.protocol)
    const attributes: OtelApi.Attributes = {
      'gen_ai.operation.name': operation,
      'gen_ai.provider.name': provider,
      'gen_ai.request.model': start.upstreamModel,
      'model_gateway.attempt.group': start.record.group,
      'model_gateway.attempt.upstream': start.record.upstream,
    }
    if (start.stream) attributes['gen_ai.request.stream'] = true
    if (start.record.tier !== undefined)
      attributes['model_gateway.attempt.tier'] = start.record.tier
    if (start.record.strategy !== undefined) {
      attributes['model_gateway.attempt.strategy'] = start.record.strategy
    }
    if (start.record.score !== undefined)
      attributes['model_gateway.attempt.score'] = start.record.score
    if (start.record.credential !== undefined) {
      attributes['model_gateway.attempt.credential'] = start.record.credential
    }
    const startedAt = now()
    const span = tracer.startSpan(
      `${operation} ${start.upstreamModel}`,
      { kind: SpanKind.CLIENT, attributes },
      parent,
    )
    let ended = false
    return {
      traceparent: formatTraceparent(span.spanContext()),
      end(record, result) {
        if (ended) return
        ended = true
        endAttemptSpan(span, record, result)
        metrics.attemptEnded(start, record, result, (now() - startedAt) / 1000)
      },
    }
  }

  function endAttemptSpan(span: OtelApi.Span, record: UpstreamAttempt, result: AttemptResult) {
    span.setAttribute('model_gateway.attempt.phase', record.phase)
    span.setAttribute('model_gateway.attempt.outcome', record.outcome)
    span.setAttribute('model_gateway.attempt.verdict', record.verdict)
    if (record.status !== undefined) span.setAttribute('http.response.status_code', record.status)
    if (result.responseId !== undefined) span.setAttribute('gen_ai.response.id', result.responseId)
    if (result.responseModel !== undefined) {
      span.setAttribute('gen_ai.response.model', result.responseModel)
    }
    if (result.finishReasons !== undefined && result.finishReasons.length > 0) {
      span.setAttribute('gen_ai.response.finish_reasons', [...result.finishReasons])
    }
    if (result.timeToFirstChunkMs !== undefined) {
      span.setAttribute('gen_ai.response.time_to_first_chunk', result.timeToFirstChunkMs / 1000)
    }
    if (result.usage !== undefined) span.setAttributes(usageAttributes(result.usage))
    const error = result.error ?? record.error
    if (error !== undefined || record.outcome !== 'answered') {
      span.setAttribute('error.type', error ?? record.outcome)
      span.setStatus({ code: SpanStatusCode.ERROR, message: error ?? record.outcome })
    }
    span.end()
  }

  function endRequestSpan(span: OtelApi.Span, event: RequestEvent) {
    const operation = genAiOperationOfRoute(event.route)
    span.updateName(
      operation !== undefined && event.model !== undefined
        ? `${operation} ${event.model}`
        : `${event.method} ${event.route}`,
    )
    const attributes: OtelApi.Attributes = {
      'model_gateway.route': event.route,
      'model_gateway.request_id': event.requestId,
      'model_gateway.outcome': event.outcome,
      'http.response.status_code': event.status,
    }
    if (operation !== undefined) attributes['gen_ai.operation.name'] = operation
    if (event.model !== undefined) attributes['gen_ai.request.model'] = event.model
    if (event.stream === true) attributes['gen_ai.request.stream'] = true
    if (event.keyId !== undefined) attributes['model_gateway.key_id'] = event.keyId
    if (event.team !== undefined) attributes['model_gateway.team'] = event.team
    if (event.group !== undefined) attributes['model_gateway.group'] = event.group
    if (event.provider !== undefined) attributes['model_gateway.upstream'] = event.provider
    if (event.upstreamModel !== undefined) {
      attributes['model_gateway.upstream_model'] = event.upstreamModel
    }
    if (event.attempts !== undefined) attributes['model_gateway.attempts'] = event.attempts.length
    if (event.error !== undefined) attributes['error.type'] = event.error.code
    if (event.usage !== undefined) {
      if (event.estimated === true) {
        // An estimate is no usage by the conventions: it stays in the gateway's own namespace.
        attributes['model_gateway.usage.estimated'] = true
        attributes['model_gateway.usage.input_tokens'] = event.usage.inputTokens
        attributes['model_gateway.usage.output_tokens'] = event.usage.outputTokens
      } else {
        Object.assign(attributes, usageAttributes(event.usage))
      }
    }
    if (event.cost !== undefined && event.cost !== null) {
      attributes['model_gateway.cost.usd'] = event.cost.nanoUsd / 1e9
    }
    span.setAttributes(attributes)
    // A server span fails on a 5xx, or on an answer that began and then failed (a cut stream).
    if (event.status >= 500 || (event.outcome === 'error' && event.status < 400)) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: event.error?.code })
    }
    span.end()
  }
}

function noteOnSpan(span: OtelApi.Span, note: RequestNote): void {
  switch (note.kind) {
    case 'backoff':
      span.addEvent('model_gateway.backoff', {
        'model_gateway.backoff.wait_ms': note.waitMs,
        'model_gateway.attempt.index': note.attempt,
      })
      return
    case 'skipped':
      span.addEvent('model_gateway.upstreams_skipped', {
        'model_gateway.group': note.group,
        'model_gateway.skip.reason': note.reason,
      })
      return
    case 'retry-budget-exhausted':
      span.addEvent('model_gateway.retry_budget.exhausted', { 'model_gateway.group': note.group })
  }
}
