import * as z from 'zod/mini'
import type { TelemetryOption } from '../observability/telemetry-option'
import { hasFunction } from './schema-parts'

/** A path the CLI serves beside the API: `/name` segments, no trailing slash. */
const routePath = z
  .string()
  .check(
    z.regex(
      /^\/[A-Za-z0-9._~-]+(?:\/[A-Za-z0-9._~-]+)*$/,
      'expected a path such as "/metrics", without a trailing slash',
    ),
  )

/**
 * `telemetry`: `true` (the global OpenTelemetry providers), or `{ tracerProvider, meterProvider }`
 * (each optional; a missing one is the global one).
 */
export function telemetrySchema() {
  return z.union([
    z.boolean(),
    z.custom<Exclude<TelemetryOption, boolean>>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.keys(value).every(
          (name) =>
            (name === 'tracerProvider' &&
              ((value as Record<string, unknown>)[name] === undefined ||
                hasFunction((value as Record<string, unknown>)[name], 'getTracer'))) ||
            (name === 'meterProvider' &&
              ((value as Record<string, unknown>)[name] === undefined ||
                hasFunction((value as Record<string, unknown>)[name], 'getMeter'))),
        ),
      'expected true, false, or { tracerProvider, meterProvider } (OpenTelemetry providers)',
    ),
  ])
}

/**
 * `metrics`: the Prometheus endpoint the CLI serves (`createPrometheusMetrics`), behind a bearer
 * token. The core only validates it.
 */
export function metricsRouteSchema() {
  return z.strictObject({
    /** Where it is served (default `/metrics`). */
    path: z.optional(routePath),
    /** The bearer token a scraper must send (`Authorization: Bearer …`). */
    token: z
      .string()
      .check(z.regex(/^[\x21-\x7e]{16,}$/, 'expected a token of at least 16 printable characters')),
  })
}

/** `probes`: the liveness and readiness routes the CLI serves (`createProbes`), each opt-in. */
export function probesSchema() {
  return z.strictObject({
    /** Answers 200 while the process serves (default: not served). */
    liveness: z.optional(routePath),
    /** Answers 200 when the gateway's state stores answer, else 503 (default: not served). */
    readiness: z.optional(routePath),
  })
}
