/**
 * A tracer provider as `@opentelemetry/api` defines it (`TracerProvider`), typed structurally so
 * that the gateway's types name no optional package.
 */
export type TelemetryTracerProvider = { getTracer(name: string, version?: string): unknown }

/** A meter provider as `@opentelemetry/api` defines it (`MeterProvider`). */
export type TelemetryMeterProvider = { getMeter(name: string, version?: string): unknown }

/**
 * The config's `telemetry`: `true` uses the providers registered globally with
 * `@opentelemetry/api` (by the OpenTelemetry SDK of the app); an object names its own providers,
 * each falling back to the global one when absent. `@opentelemetry/api` is then imported (an
 * optional peer dependency); without `telemetry`, it never is.
 */
export type TelemetryOption =
  | boolean
  | {
      tracerProvider?: TelemetryTracerProvider | undefined
      meterProvider?: TelemetryMeterProvider | undefined
    }
