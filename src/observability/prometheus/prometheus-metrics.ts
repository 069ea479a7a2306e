import type { UpstreamHealth } from '../../failover/upstream-selector'
import type { MaybePromise } from '../../internal/maybe-promise'
import type { MetricLabels, MetricName } from '../metric-catalogue'
import { createCircuitWatch, measureRequest } from '../request-measures'
import type { RequestEvent } from '../request-event'
import { createPrometheusRegistry } from './prometheus-registry'

/** Options of `createPrometheusMetrics`. */
export type PrometheusMetricsOptions = {
  /**
   * The most label sets kept per metric (default 1,000); past it, measures go to one
   * `overflow="true"` series. Labels are the config's groups, upstreams and models and closed
   * enums, so the cap is a guard, not a budget.
   */
  maxSeriesPerMetric?: number | undefined
}

/** What the circuit gauges are read from: a gateway (`gateway.health()`). */
export type HealthSource = { health(): MaybePromise<readonly UpstreamHealth[]> }

/**
 * The gateway's metrics in the Prometheus text format, with no dependency: feed it the gateway's
 * events (`onEvent: metrics.record`) and let it read the gateway's `health()` (`metrics.watch`)
 * for the circuit and in-flight gauges. Mount `metrics.handler` behind your own auth (the CLI's
 * `metrics` section requires a bearer token): it lists upstream and group names.
 *
 * @example
 * const metrics = createPrometheusMetrics()
 * const gateway = createGateway({ ...config, onEvent: metrics.record })
 * metrics.watch(gateway)
 * // in your router, behind your auth:
 * if (new URL(request.url).pathname === '/metrics') return metrics.handler(request)
 */
export function createPrometheusMetrics(options: PrometheusMetricsOptions = {}) {
  const registry = createPrometheusRegistry(options.maxSeriesPerMetric ?? 1000)
  let circuits: ReturnType<typeof createCircuitWatch> | undefined

  const metrics = {
    /** Counts one completed request: pass as (or call from) the config's `onEvent`. */
    record(event: RequestEvent): void {
      measureRequest(event, registry)
    },
    /** Reads the circuit and in-flight gauges from `source.health()` at every scrape. */
    watch(source: HealthSource): void {
      circuits = createCircuitWatch(async () => await source.health())
    },
    /** The metrics as Prometheus text (format 0.0.4). */
    async render(): Promise<string> {
      const gauges = new Map<MetricName, [MetricLabels, number][]>()
      if (circuits !== undefined) {
        await circuits(registry, (name, value, labels) => {
          let readings = gauges.get(name)
          if (readings === undefined) gauges.set(name, (readings = []))
          readings.push([labels, value])
        })
      }
      return registry.render(gauges)
    },
    /** A fetch handler answering `GET` with the text; anything else is 405. */
    async handler(request: Request): Promise<Response> {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return new Response('Method Not Allowed\n', {
          status: 405,
          headers: { allow: 'GET, HEAD' },
        })
      }
      const text = await metrics.render()
      return new Response(request.method === 'HEAD' ? null : text, {
        headers: {
          'content-type': 'text/plain; version=0.0.4; charset=utf-8',
          'cache-control': 'no-store',
        },
      })
    },
  }
  return metrics
}

/** The metrics object of `createPrometheusMetrics`. */
export type PrometheusMetrics = ReturnType<typeof createPrometheusMetrics>
