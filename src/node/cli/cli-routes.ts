import { coreOf } from '../../gateway-core'
import type { GatewayHandler } from '../../gateway'
import { createProbes } from '../../observability/probes'
import { createMetricsRoute } from '../../observability/prometheus/metrics-route'
import {
  createPrometheusMetrics,
  type PrometheusMetrics,
} from '../../observability/prometheus/prometheus-metrics'
import type { ConnectedState } from './state'
import type { MountedHandler } from '../transport/to-node-handler'

/** The Prometheus metrics of a config with a `metrics` section, made before its gateway. */
export function planMetrics(config: { metrics?: unknown }): PrometheusMetrics | undefined {
  return config.metrics === undefined ? undefined : createPrometheusMetrics()
}

/**
 * The routes the CLI serves beside the API, from the gateway's validated config: the console,
 * `metrics` (the Prometheus text behind its bearer token), `probes` (liveness, and readiness
 * asking the database and Redis the config's `state` connected) and `home` (`GET /`, what this
 * address is). One mounted handler for all, or `undefined` when there is none.
 */
export function mountRoutes(
  gateway: GatewayHandler & { state: ConnectedState },
  consoleHandler: MountedHandler | undefined,
  metrics: PrometheusMetrics | undefined,
  home?: MountedHandler,
): MountedHandler | undefined {
  const inspection = coreOf(gateway)?.inspect()
  const mounted: MountedHandler[] = []
  if (consoleHandler !== undefined) mounted.push(consoleHandler)
  const metricsConfig = inspection?.metrics
  if (metrics !== undefined && metricsConfig !== undefined) {
    metrics.watch(gateway)
    mounted.push(createMetricsRoute(metrics.handler, metricsConfig))
  }
  const probes = inspection?.probes
  if (probes !== undefined && (probes.liveness !== undefined || probes.readiness !== undefined)) {
    mounted.push(createProbes({ ...probes, checks: gateway.state.checks }))
  }
  // Last, so that a probe or metrics path configured at `/` keeps it.
  if (home !== undefined) mounted.push(home)
  if (mounted.length <= 1) return mounted[0]
  const route = (request: Request, context?: object) => {
    const path = new URL(request.url).pathname
    return mounted.find((handler) => handler.handles(path))!(request, context)
  }
  return Object.assign(route, {
    handles: (pathname: string) => mounted.some((handler) => handler.handles(pathname)),
  })
}

/** The paths of the routes served beside the API, for the start output. */
export function routePaths(gateway: GatewayHandler): string[] {
  const inspection = coreOf(gateway)?.inspect()
  const paths: string[] = []
  if (inspection?.metrics !== undefined) paths.push(inspection.metrics.path ?? '/metrics')
  if (inspection?.probes?.liveness !== undefined) paths.push(inspection.probes.liveness)
  if (inspection?.probes?.readiness !== undefined) paths.push(inspection.probes.readiness)
  return paths
}
