import type { UpstreamAttempt } from '../usage/upstream-attempt'
import type { ChargedPrice } from '../pricing/usage-cost'
import type { UsageRecord } from '../usage/usage-meter'
import { literal } from './migrate'
import type { Tables } from './tables'

/** One ledger row as it travels to Postgres, inside a JSON array. */
export type LedgerRow = {
  request_id: string
  started_at_ms: number
  key_id: string
  group_id: string
  provider_id: string
  model: string
  upstream_model: string
  route: string
  stream: boolean
  outcome: string
  status: number
  input_tokens: number | null
  output_tokens: number | null
  cached_input_tokens: number | null
  total_tokens: number | null
  estimated: boolean
  duration_ms: number
  /** The attempts of a request that made more than one or went to a resting upstream, else null (schema version 2). */
  attempts: StoredAttempt[] | null
  /** Schema version 3: the token categories apart, the cost and the price it was charged at. */
  cache_write_input_tokens: number | null
  cache_write_1h_input_tokens: number | null
  reasoning_tokens: number | null
  /** Nano-USD as charged; null for an unpriced model. */
  cost_nano: number | null
  list_cost_nano: number | null
  price: ChargedPrice | null
}

/** One upstream attempt as the ledger stores it: `UpstreamAttempt`, made storable. */
type StoredAttempt = Record<string, string | number | boolean>

/**
 * A usage record as a ledger row. Text is made storable (Postgres text holds no NUL and JSON no
 * lone surrogate) and numbers whole and non-negative, so that one odd record can never make a
 * whole batch fail. Token counts stay `null` when the upstream reported none: never a silent 0.
 */
export function toLedgerRow(record: UsageRecord): LedgerRow {
  const usage = record.usage
  const cost = record.cost ?? undefined
  return {
    request_id: storable(record.requestId),
    started_at_ms: whole(record.startedAt) ?? 0,
    key_id: storable(record.keyId),
    group_id: storable(record.groupId),
    provider_id: storable(record.providerId),
    model: storable(record.model),
    upstream_model: storable(record.upstreamModel),
    route: storable(record.route),
    stream: record.stream,
    outcome: record.outcome,
    status: Math.min(999, whole(record.status) ?? 0),
    input_tokens: usage === undefined ? null : (whole(usage.inputTokens) ?? null),
    output_tokens: usage === undefined ? null : (whole(usage.outputTokens) ?? null),
    cached_input_tokens: usage === undefined ? null : (whole(usage.cachedInputTokens) ?? null),
    total_tokens: usage === undefined ? null : (whole(usage.totalTokens) ?? null),
    // `estimated` marks usage the gateway had to estimate (an upstream that reported none).
    estimated: (record as UsageRecord & { estimated?: boolean }).estimated === true,
    duration_ms: Math.min(2_147_483_647, whole(record.durationMs) ?? 0),
    attempts:
      record.attempts !== undefined &&
      (record.attempts.length > 1 || record.attempts[0]?.resting === true)
        ? record.attempts.map(storedAttempt)
        : null,
    cache_write_input_tokens:
      usage === undefined ? null : (whole(usage.cacheWriteInputTokens) ?? null),
    cache_write_1h_input_tokens:
      usage === undefined ? null : (whole(usage.cacheWrite1hInputTokens) ?? null),
    reasoning_tokens: usage === undefined ? null : (whole(usage.reasoningTokens) ?? null),
    // A record without a cost (an unpriced model, or a meter that predates prices) is unpriced.
    cost_nano: cost === undefined ? null : (whole(cost.nanoUsd) ?? null),
    list_cost_nano: cost === undefined ? null : (whole(cost.listNanoUsd) ?? null),
    price: cost === undefined ? null : cost.price,
  }
}

/** An attempt with its text storable and its numbers whole; absent fields stay absent. */
function storedAttempt(attempt: UpstreamAttempt): StoredAttempt {
  const stored: StoredAttempt = {
    group: storable(attempt.group),
    upstream: storable(attempt.upstream),
    phase: attempt.phase,
    outcome: attempt.outcome,
    verdict: attempt.verdict,
    duration_ms: whole(attempt.durationMs) ?? 0,
  }
  if (attempt.credential !== undefined) stored.credential = storable(attempt.credential)
  if (attempt.status !== undefined) stored.status = whole(attempt.status) ?? 0
  if (attempt.error !== undefined) stored.error = storable(attempt.error)
  if (attempt.resting === true) stored.resting = true
  return stored
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

function storable(text: string): string {
  return String(text).replaceAll('\u0000', '').replace(loneSurrogate, '\uFFFD')
}

function whole(value: number): number | undefined {
  return Number.isFinite(value)
    ? Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.round(value)))
    : undefined
}

const rowColumns = `request_id text, started_at_ms bigint, key_id text, group_id text,
  provider_id text, model text, upstream_model text, route text, stream boolean, outcome text,
  status smallint, input_tokens bigint, output_tokens bigint, cached_input_tokens bigint,
  total_tokens bigint, estimated boolean, duration_ms integer, attempts jsonb,
  cache_write_input_tokens bigint, cache_write_1h_input_tokens bigint, reasoning_tokens bigint,
  cost_nano bigint, list_cost_nano bigint, price jsonb`

/**
 * One statement that inserts a batch (a JSON array in `$1`) and adds exactly the rows it inserted
 * to the daily rollup: a replayed request id is skipped by `ON CONFLICT DO NOTHING` and so never
 * counted twice, and the rollup commits with the rows or not at all. Rollup rows are upserted in
 * key order, so concurrent batches from several instances lock them in the same order and cannot
 * deadlock each other. Returns the number of rows inserted.
 */
export function insertBatchSql(tables: Tables): string {
  return `WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS r(${rowColumns})
), inserted AS (
  INSERT INTO ${tables.ledger} (request_id, started_at, key_id, group_id, provider_id, model,
    upstream_model, route, stream, outcome, status, input_tokens, output_tokens,
    cached_input_tokens, total_tokens, estimated, duration_ms, ended_at, attempts,
    cache_write_input_tokens, cache_write_1h_input_tokens, reasoning_tokens, cost_nano,
    list_cost_nano, price)
  SELECT request_id, timestamptz 'epoch' + started_at_ms * interval '1 millisecond', key_id,
    group_id, provider_id, model, upstream_model, route, stream, outcome, status, input_tokens,
    output_tokens, cached_input_tokens, total_tokens, estimated, duration_ms,
    timestamptz 'epoch' + (started_at_ms + duration_ms) * interval '1 millisecond', attempts,
    cache_write_input_tokens, cache_write_1h_input_tokens, reasoning_tokens, cost_nano,
    list_cost_nano, price
  FROM input
  ON CONFLICT (request_id, started_at) DO NOTHING
  RETURNING key_id, ended_at, model, outcome, input_tokens, output_tokens, cached_input_tokens,
    total_tokens, cache_write_input_tokens, cache_write_1h_input_tokens, reasoning_tokens,
    cost_nano, list_cost_nano
), rolled AS (
  INSERT INTO ${tables.daily} AS daily (key_id, day, model, requests, error_requests,
    aborted_requests, input_tokens, output_tokens, cached_input_tokens, total_tokens,
    cache_write_input_tokens, cache_write_1h_input_tokens, reasoning_tokens, cost_nano,
    list_cost_nano, unpriced_requests)
  SELECT key_id, (ended_at AT TIME ZONE 'UTC')::date, model, count(*),
    count(*) FILTER (WHERE outcome = 'error'), count(*) FILTER (WHERE outcome = 'aborted'),
    coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0),
    coalesce(sum(cached_input_tokens), 0), coalesce(sum(total_tokens), 0),
    coalesce(sum(cache_write_input_tokens), 0), coalesce(sum(cache_write_1h_input_tokens), 0),
    coalesce(sum(reasoning_tokens), 0), coalesce(sum(cost_nano), 0),
    coalesce(sum(list_cost_nano), 0), count(*) FILTER (WHERE cost_nano IS NULL)
  FROM inserted
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (key_id, day, model) DO UPDATE SET
    requests = daily.requests + excluded.requests,
    error_requests = daily.error_requests + excluded.error_requests,
    aborted_requests = daily.aborted_requests + excluded.aborted_requests,
    input_tokens = daily.input_tokens + excluded.input_tokens,
    output_tokens = daily.output_tokens + excluded.output_tokens,
    cached_input_tokens = daily.cached_input_tokens + excluded.cached_input_tokens,
    total_tokens = daily.total_tokens + excluded.total_tokens,
    cache_write_input_tokens = daily.cache_write_input_tokens + excluded.cache_write_input_tokens,
    cache_write_1h_input_tokens =
      daily.cache_write_1h_input_tokens + excluded.cache_write_1h_input_tokens,
    reasoning_tokens = daily.reasoning_tokens + excluded.reasoning_tokens,
    cost_nano = daily.cost_nano + excluded.cost_nano,
    list_cost_nano = daily.list_cost_nano + excluded.list_cost_nano,
    unpriced_requests = daily.unpriced_requests + excluded.unpriced_requests,
    updated_at = now()
  RETURNING 1
)
SELECT (SELECT count(*) FROM inserted)::text AS inserted, (SELECT count(*) FROM rolled)::text AS rolled`
}

/**
 * Creates the ledger partition of one month (`YYYY-MM`) unless it exists, under the same advisory
 * lock as migrations, so that instances racing on the first write of a month do not collide.
 */
export function ensurePartitionSql(tables: Tables, month: string): string {
  const start = `${month}-01`
  const [year, monthNumber] = month.split('-').map(Number) as [number, number]
  const next =
    monthNumber === 12
      ? `${year + 1}-01-01`
      : `${year}-${String(monthNumber + 1).padStart(2, '0')}-01`
  return `DO $mg_partition$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext(${literal(tables.lockName)}));
  CREATE TABLE IF NOT EXISTS ${tables.qualify(tables.partitionName(month))}
    PARTITION OF ${tables.ledger} FOR VALUES FROM ('${start} 00:00:00+00') TO ('${next} 00:00:00+00');
END
$mg_partition$`
}

/** `YYYY-MM` of an instant, in UTC. */
export function utcMonth(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7)
}
