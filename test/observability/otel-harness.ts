import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
  type MetricData,
} from '@opentelemetry/sdk-metrics'

/** A metric reader collected on demand (the SDK's readers are abstract over export). */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE })
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/**
 * A tracer provider with an in-memory exporter and a meter provider with an on-demand reader,
 * both passed in the config (no global provider is registered, so tests share no state).
 */
export function otelHarness() {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  const reader = new CollectingReader()
  const meterProvider = new MeterProvider({ readers: [reader] })
  return {
    telemetry: { tracerProvider, meterProvider },
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    async metrics(): Promise<Map<string, MetricData>> {
      const { resourceMetrics } = await reader.collect()
      const found = new Map<string, MetricData>()
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) found.set(metric.descriptor.name, metric)
      }
      return found
    },
  }
}

/** A histogram's data points. */
export function histogramPoints(metric: MetricData | undefined): DataPoint<Histogram>[] {
  if (metric === undefined) throw new Error('no such metric')
  return metric.dataPoints as DataPoint<Histogram>[]
}

/** A counter's data points. */
export function sumPoints(metric: MetricData | undefined): DataPoint<number>[] {
  if (metric === undefined) throw new Error('no such metric')
  return metric.dataPoints as DataPoint<number>[]
}
