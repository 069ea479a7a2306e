import type { UpstreamHealth } from '../failover/upstream-selector'
import { genAiOperationOfRoute } from './gen-ai-conventions'
import type { MeasureSink, MetricLabels } from './metric-catalogue'
import type { RequestEvent } from './request-event'

/**
 * The measures of one completed request, from its event: what the OpenTelemetry meter and the
 * Prometheus registry both count. Labels are the configured group, upstream and model and closed
 * enums; a model name is a label only once the request was routed (a client's unknown name never
 * becomes a series).
 */
export function measureRequest(event: RequestEvent, sink: MeasureSink): void {
  const routed = event.group !== undefined
  const requestLabels: MetricLabels = {
    'model_gateway.route': event.route,
    'model_gateway.outcome': event.outcome,
    'http.response.status_code': event.status,
  }
  if (event.error !== undefined) requestLabels['error.type'] = event.error.code
  if (routed) {
    requestLabels['model_gateway.group'] = event.group!
    if (event.model !== undefined) requestLabels['gen_ai.request.model'] = event.model
  }
  sink.add('model_gateway.requests', 1, requestLabels)
  if (event.cache !== undefined && routed) {
    sink.add('model_gateway.cache.requests', 1, {
      'model_gateway.group': event.group!,
      'model_gateway.cache.result': event.cache,
    })
  }
  if (event.refusal !== undefined) {
    const refusalLabels: MetricLabels = {
      'model_gateway.limit': event.refusal.limit,
      'model_gateway.limit.reason': event.refusal.reason,
    }
    // The level and the team are bounded labels (the config's or the database's teams); a key
    // id or an end user never is one.
    if (event.refusal.level !== undefined) {
      refusalLabels['model_gateway.limit.level'] = event.refusal.level
    }
    if (event.team !== undefined) refusalLabels['model_gateway.team'] = event.team
    sink.add('model_gateway.limit.rejections', 1, refusalLabels)
  }
  const operation = genAiOperationOfRoute(event.route)
  if (routed && operation !== undefined && event.model !== undefined) {
    measureGeneration(event, operation, sink)
  }
  if (event.attempts !== undefined) measureAttempts(event, sink)
}

function measureGeneration(event: RequestEvent, operation: string, sink: MeasureSink): void {
  const labels: MetricLabels = {
    'gen_ai.operation.name': operation,
    'gen_ai.request.model': event.model!,
    'model_gateway.group': event.group!,
  }
  if (event.error !== undefined) labels['error.type'] = event.error.code
  const seconds = event.durationMs / 1000
  sink.record('gen_ai.server.request.duration', seconds, labels)
  const firstChunk = event.timeToFirstChunkMs
  if (event.stream === true && firstChunk !== undefined) {
    sink.record('gen_ai.server.time_to_first_token', firstChunk / 1000, labels)
    const output = event.usage?.outputTokens ?? 0
    if (event.estimated !== true && output >= 2) {
      const perToken = (event.durationMs - firstChunk) / 1000 / (output - 1)
      sink.record('gen_ai.server.time_per_output_token', perToken, labels)
    }
  }
  // A hit's usage is the original call's: counted once, when it was metered, not again.
  const usage = event.cache === 'hit' ? undefined : event.usage
  if (usage !== undefined) {
    const tokenLabels: MetricLabels = {
      'model_gateway.group': event.group!,
      'model_gateway.estimated': event.estimated === true,
    }
    if (event.upstreamModel !== undefined)
      tokenLabels['model_gateway.upstream_model'] = event.upstreamModel
    const types: [string, number][] = [
      ['input', usage.inputTokens],
      ['output', usage.outputTokens],
      ['cache_read', usage.cachedInputTokens],
      ['cache_write', usage.cacheWriteInputTokens + usage.cacheWrite1hInputTokens],
      ['reasoning', usage.reasoningTokens],
    ]
    for (const [type, count] of types) {
      if (count > 0)
        sink.add('model_gateway.usage.tokens', count, {
          ...tokenLabels,
          'model_gateway.token.type': type,
        })
    }
  }
  if (event.cost !== undefined && event.cost !== null && event.cost.nanoUsd > 0) {
    const spendLabels: MetricLabels = { 'model_gateway.group': event.group! }
    if (event.team !== undefined) spendLabels['model_gateway.team'] = event.team
    if (event.upstreamModel !== undefined)
      spendLabels['model_gateway.upstream_model'] = event.upstreamModel
    sink.add('model_gateway.spend', event.cost.nanoUsd / 1e9, spendLabels)
  }
}

function measureAttempts(event: RequestEvent, sink: MeasureSink): void {
  const attempts = event.attempts!
  const firstGroup = attempts[0]?.group
  for (const [index, attempt] of attempts.entries()) {
    const labels: MetricLabels = {
      'model_gateway.group': attempt.group,
      'model_gateway.upstream': attempt.upstream,
      'model_gateway.attempt.outcome': attempt.outcome,
      'model_gateway.attempt.verdict': attempt.verdict,
    }
    if (attempt.error !== undefined) labels['error.type'] = attempt.error
    sink.add('model_gateway.upstream.attempts', 1, labels)
    if (index === 0) continue
    const result = attempt.outcome === 'answered' ? 'succeeded' : 'failed'
    const step = attempt.group === firstGroup ? 'model_gateway.retries' : 'model_gateway.fallbacks'
    sink.add(step, 1, { 'model_gateway.group': attempt.group, 'model_gateway.result': result })
  }
  if (event.retryBudgetExhausted === true && firstGroup !== undefined) {
    sink.add('model_gateway.retry_budget.exhausted', 1, { 'model_gateway.group': firstGroup })
  }
}

/** A circuit's state as a number: 0 closed, 1 half-open, 2 open. */
export function circuitStateValue(circuit: UpstreamHealth['circuit']): number {
  return circuit === 'open' ? 2 : circuit === 'half-open' ? 1 : 0
}

/**
 * Reads the upstreams' health for the circuit gauges, and counts the state changes since the last
 * reading (a circuit that opened and closed again between two readings is not seen).
 */
export function createCircuitWatch(health: () => Promise<readonly UpstreamHealth[]>) {
  const last = new Map<string, UpstreamHealth['circuit']>()
  return async (
    sink: MeasureSink,
    gauge: (
      name: 'model_gateway.circuit.state' | 'model_gateway.upstream.in_flight',
      value: number,
      labels: MetricLabels,
    ) => void,
  ) => {
    for (const upstream of await health()) {
      const labels = {
        'model_gateway.group': upstream.groupId,
        'model_gateway.upstream': upstream.upstreamId,
      }
      const key = `${upstream.groupId}\u0000${upstream.upstreamId}`
      const before = last.get(key)
      if (before !== undefined && before !== upstream.circuit) {
        sink.add('model_gateway.circuit.transitions', 1, {
          ...labels,
          'model_gateway.circuit.state': upstream.circuit,
        })
      }
      last.set(key, upstream.circuit)
      gauge('model_gateway.circuit.state', circuitStateValue(upstream.circuit), labels)
      gauge('model_gateway.upstream.in_flight', upstream.inFlight, labels)
    }
  }
}
