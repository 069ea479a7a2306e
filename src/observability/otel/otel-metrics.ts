import type * as OtelApi from '@opentelemetry/api'
import type { UpstreamHealth } from '../../failover/upstream-selector'
import { genAiOperationOfCall, genAiProviderName } from '../gen-ai-conventions'
import {
  metricCatalogue,
  type MeasureSink,
  type MetricLabels,
  type MetricName,
} from '../metric-catalogue'
import { createCircuitWatch, measureRequest } from '../request-measures'
import type { RequestEvent } from '../request-event'
import type { AttemptResult, AttemptStart, RequestNote } from '../telemetry-hooks'
import type { UpstreamAttempt } from '../../usage/upstream-attempt'

type Instrument = OtelApi.Counter | OtelApi.Histogram | OtelApi.UpDownCounter

/**
 * The gateway's metrics on an OpenTelemetry meter: every counter and histogram of
 * `metricCatalogue`, with the conventions' bucket boundaries as advice, and the circuit gauges
 * read from `health()` at each collection.
 */
export function createOtelMetrics(
  meter: OtelApi.Meter,
  health: () => Promise<readonly UpstreamHealth[]>,
) {
  const instruments = new Map<MetricName, Instrument>()
  const gauges = new Map<MetricName, OtelApi.ObservableGauge>()
  for (const [name, definition] of Object.entries(metricCatalogue) as [
    MetricName,
    (typeof metricCatalogue)[MetricName],
  ][]) {
    const options: OtelApi.MetricOptions = {
      unit: definition.unit,
      description: definition.description,
    }
    if ('buckets' in definition) {
      options.advice = { explicitBucketBoundaries: [...definition.buckets] }
    }
    if (definition.kind === 'histogram') instruments.set(name, meter.createHistogram(name, options))
    else if (definition.kind === 'counter')
      instruments.set(name, meter.createCounter(name, options))
    else if (definition.kind === 'updown') {
      instruments.set(name, meter.createUpDownCounter(name, options))
    } else gauges.set(name, meter.createObservableGauge(name, options))
  }
  const sink: MeasureSink = {
    add: (name, value, labels) => (instruments.get(name) as OtelApi.Counter).add(value, labels),
    record: (name, value, labels) =>
      (instruments.get(name) as OtelApi.Histogram).record(value, labels),
  }
  const watch = createCircuitWatch(health)
  meter.addBatchObservableCallback(
    async (result) => {
      await watch(sink, (name, value, labels) => result.observe(gauges.get(name)!, value, labels))
    },
    [...gauges.values()],
  )
  const inFlight = instruments.get('model_gateway.requests.in_flight') as OtelApi.UpDownCounter

  return {
    requestStarted(): void {
      inFlight.add(1)
    },
    requestEnded(event: RequestEvent): void {
      inFlight.add(-1)
      measureRequest(event, sink)
    },
    note(_note: RequestNote): void {
      // Backoffs and skipped upstreams are span events only; a spent retry budget is counted
      // from the request's event, once.
    },
    /** The client-side GenAI metrics of one attempt, `seconds` from its call to its end. */
    attemptEnded(
      start: AttemptStart,
      record: UpstreamAttempt,
      result: AttemptResult,
      seconds: number,
    ): void {
      const labels: MetricLabels = {
        'gen_ai.operation.name': genAiOperationOfCall(start.operation),
        'gen_ai.provider.name': genAiProviderName(start.protocol),
        'gen_ai.request.model': start.upstreamModel,
        'model_gateway.group': record.group,
        'model_gateway.upstream': record.upstream,
      }
      const error = result.error ?? record.error
      const durationLabels = error === undefined ? labels : { ...labels, 'error.type': error }
      sink.record('gen_ai.client.operation.duration', seconds, durationLabels)
      if (result.timeToFirstChunkMs !== undefined) {
        sink.record(
          'gen_ai.client.operation.time_to_first_chunk',
          result.timeToFirstChunkMs / 1000,
          labels,
        )
      }
      // Only usage the upstream reported: the conventions forbid estimates here.
      if (result.usage !== undefined) {
        const tokens = { ...labels }
        if (result.responseModel !== undefined) {
          tokens['gen_ai.response.model'] = result.responseModel
        }
        sink.record('gen_ai.client.token.usage', result.usage.inputTokens, {
          ...tokens,
          'gen_ai.token.type': 'input',
        })
        sink.record('gen_ai.client.token.usage', result.usage.outputTokens, {
          ...tokens,
          'gen_ai.token.type': 'output',
        })
      }
    },
  }
}
