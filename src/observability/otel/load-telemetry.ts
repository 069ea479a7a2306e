import type { UpstreamHealth } from '../../failover/upstream-selector'
import type { Telemetry } from '../telemetry-hooks'
import type { TelemetryOption } from '../telemetry-option'

/**
 * Loads the OpenTelemetry back end of `telemetry`: `@opentelemetry/api` (an optional peer
 * dependency) and the gateway's module over it, both by dynamic import, so that a gateway without
 * `telemetry` never loads either. The `try` lets bundlers (esbuild, wrangler) build an app that
 * does not install the API: the import is then left to fail here, at run time, with a clear
 * message, and only for a config that asks for telemetry.
 */
export async function loadTelemetry(
  option: TelemetryOption,
  health: () => Promise<readonly UpstreamHealth[]>,
  now: () => number,
): Promise<Telemetry> {
  let api: typeof import('@opentelemetry/api')
  try {
    api = await import('@opentelemetry/api')
  } catch (error) {
    throw new Error(
      '`telemetry` needs the `@opentelemetry/api` package: npm install @opentelemetry/api',
      { cause: error },
    )
  }
  const { createOtelTelemetry } = await import('./otel-telemetry')
  return createOtelTelemetry(api, option, health, now)
}
