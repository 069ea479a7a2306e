import type { UpstreamHealth } from '../failover/upstream-selector'
import type { GatewayRequest } from '../http/gateway-request'
import { loadTelemetry } from './otel/load-telemetry'
import type { RequestTrace, Telemetry } from './telemetry-hooks'
import type { TelemetryOption } from './telemetry-option'

/** Starts a request's trace: at once once telemetry has loaded, after it before that. */
export type RequestTracer = (
  request: GatewayRequest,
) => RequestTrace | undefined | Promise<RequestTrace | undefined>

/**
 * The request tracer of a config's `telemetry`, or `undefined` when it is absent or `false` (then
 * nothing is loaded, and a request pays one `undefined` check). Loading starts now; requests that
 * arrive before it is done wait for it. A failed load (the API is not installed) is logged once
 * and the gateway serves without telemetry: no request fails because of it.
 */
export function createRequestTracer(
  option: TelemetryOption | undefined,
  health: () => Promise<readonly UpstreamHealth[]>,
  now: () => number,
): RequestTracer | undefined {
  if (option === undefined || option === false) return undefined
  let telemetry: Telemetry | undefined
  let failed = false
  const loading = loadTelemetry(option, health, now).then(
    (loaded) => (telemetry = loaded),
    (error: unknown) => {
      failed = true
      console.error('[model-gateway] telemetry is off:', error)
      return undefined
    },
  )
  return (request) => {
    if (telemetry !== undefined) return telemetry.startRequest(request)
    if (failed) return undefined
    return loading.then((loaded) => loaded?.startRequest(request))
  }
}
