import type { FieldDoc } from './field-doc'

/** The descriptions of `telemetry`, `metrics` and `probes` (see `field-docs.ts`). */
export const telemetryFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  telemetry: {
    type: 'boolean | { tracerProvider?, meterProvider? }',
    text: 'OpenTelemetry spans and metrics by the GenAI conventions (v1.41.0): `true` uses the providers the app registered globally (the OpenTelemetry SDK; with the CLI, `node --import` a setup file); in code, `{ tracerProvider, meterProvider }` passes them. Needs the optional peer dependency `@opentelemetry/api`, imported only when this is set. Prompts and completions are never recorded. See docs/observability.md.',
    defaultText: 'off: nothing is imported',
  },
  metrics: {
    text: 'The Prometheus endpoint the CLI serves beside the API (`createPrometheusMetrics` in code), behind a bearer token.',
    defaultText: 'not served',
  },
  'metrics.path': { text: 'Where the metrics are served.', default: '/metrics' },
  'metrics.token': {
    text: 'The bearer token a scraper sends (`Authorization: Bearer …`): at least 16 printable characters. Use `${METRICS_TOKEN}`, never a token in the file.',
  },
  probes: {
    text: 'Liveness and readiness routes the CLI serves for load balancers and orchestrators (`createProbes` in code), each only when its path is given; they need no token and tell nothing but up or down.',
    defaultText: 'not served',
  },
  'probes.liveness': {
    text: 'A path answering 200 `{"status":"live"}` while the process serves, such as `/livez`.',
    defaultText: 'not served',
  },
  'probes.readiness': {
    text: 'A path answering 200 when the state stores (`state.postgres`, `state.redis`) answer within 2 s, else 503 naming the one that did not, such as `/readyz`.',
    defaultText: 'not served',
  },
}
