import {
  durationBuckets,
  timePerOutputTokenBuckets,
  timeToFirstTokenBuckets,
  tokenBuckets,
} from './gen-ai-conventions'

/** One metric the gateway reports, by its OpenTelemetry name. */
export type MetricDefinition = {
  kind: 'counter' | 'histogram' | 'gauge' | 'updown'
  unit: string
  description: string
  buckets?: readonly number[] | undefined
}

/** Label values: the bounded attributes of one series. */
export type MetricLabels = Record<string, string | number | boolean>

/**
 * Every metric of the gateway, as the OpenTelemetry meter creates them and the Prometheus
 * renderer names them (`gen_ai.server.request.duration` → `gen_ai_server_request_duration_seconds`).
 * Labels are bounded: the configured group, upstream and model names and closed enums, never a
 * key, user or request id.
 */
export const metricCatalogue = {
  'gen_ai.client.operation.duration': {
    kind: 'histogram',
    unit: 's',
    description: 'Duration of an upstream attempt, from its call to the end of its answer.',
    buckets: durationBuckets,
  },
  'gen_ai.client.token.usage': {
    kind: 'histogram',
    unit: '{token}',
    description: 'Tokens an upstream reported per attempt, by gen_ai.token.type (never estimates).',
    buckets: tokenBuckets,
  },
  'gen_ai.client.operation.time_to_first_chunk': {
    kind: 'histogram',
    unit: 's',
    description: 'Time from an upstream attempt to its first streamed event.',
    buckets: durationBuckets,
  },
  'gen_ai.server.request.duration': {
    kind: 'histogram',
    unit: 's',
    description: 'Duration of a generation request as the gateway served it, to its last byte.',
    buckets: durationBuckets,
  },
  'gen_ai.server.time_to_first_token': {
    kind: 'histogram',
    unit: 's',
    description: 'Time from a streamed request to its first event for the client.',
    buckets: timeToFirstTokenBuckets,
  },
  'gen_ai.server.time_per_output_token': {
    kind: 'histogram',
    unit: 's',
    description: 'Time per output token after the first, of a stream with reported usage.',
    buckets: timePerOutputTokenBuckets,
  },
  'model_gateway.requests': {
    kind: 'counter',
    unit: '{request}',
    description: 'Requests completed, by route, outcome, status and error code.',
  },
  'model_gateway.requests.in_flight': {
    kind: 'updown',
    unit: '{request}',
    description: 'Requests in flight (a stream until it ends).',
  },
  'model_gateway.upstream.attempts': {
    kind: 'counter',
    unit: '{attempt}',
    description: 'Upstream attempts, by outcome, verdict and error code.',
  },
  'model_gateway.retries': {
    kind: 'counter',
    unit: '{attempt}',
    description: "Attempts after a request's first within its own group, by result.",
  },
  'model_gateway.fallbacks': {
    kind: 'counter',
    unit: '{attempt}',
    description: 'Attempts on a fallback group, by result.',
  },
  'model_gateway.retry_budget.exhausted': {
    kind: 'counter',
    unit: '{request}',
    description: "Requests that stopped retrying because their group's retry budget was spent.",
  },
  'model_gateway.limit.rejections': {
    kind: 'counter',
    unit: '{request}',
    description:
      'Requests refused by a limit, by limit, reason, level (key, team, organisation, end-user) and team.',
  },
  'model_gateway.cache.requests': {
    kind: 'counter',
    unit: '{request}',
    description:
      'Requests of a group with a response cache, by group and result: hit, miss or bypass.',
  },
  'model_gateway.usage.tokens': {
    kind: 'counter',
    unit: '{token}',
    description: "Tokens metered, by type; estimated=true for the gateway's own estimates.",
  },
  'model_gateway.spend': {
    kind: 'counter',
    unit: '{USD}',
    description: 'Spend at the answering model’s price, in US dollars, by group, model and team.',
  },
  'model_gateway.circuit.state': {
    kind: 'gauge',
    unit: '1',
    description: "An upstream's circuit: 0 closed, 1 half-open, 2 open.",
  },
  'model_gateway.circuit.transitions': {
    kind: 'counter',
    unit: '{transition}',
    description: 'Circuit state changes, as seen between two readings of health(), by new state.',
  },
  'model_gateway.upstream.in_flight': {
    kind: 'gauge',
    unit: '{request}',
    description: 'Calls in flight on an upstream.',
  },
} as const satisfies Record<string, MetricDefinition>

/** The name of a metric of the catalogue. */
export type MetricName = keyof typeof metricCatalogue

/** Where measures go: an OpenTelemetry meter's instruments, or the Prometheus registry. */
export type MeasureSink = {
  add(name: MetricName, value: number, labels: MetricLabels): void
  record(name: MetricName, value: number, labels: MetricLabels): void
}
