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
  /** Schema version 4: the key's team and the request's end user, when there are. */
  team: string | null
  end_user: string | null
  /** Schema version 5: `tool` for an MCP tool call, null for a model call. */
  kind: string | null
  /** Schema version 6: true for a response-cache hit (else null), and what the hit saved. */
  cached: boolean | null
  saved_cost_nano: number | null
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
      (record.attempts.length > 1 || record.attempts[0]?.resting === true || chosen(record))
        ? record.attempts.map(storedAttempt)
        : null,
    cache_write_input_tokens:
      usage === undefined ? null : (whole(usage.cacheWriteInputTokens) ?? null),
    cache_write_1h_input_tokens:
      usage === undefined ? null : (whole(usage.cacheWrite1hInputTokens) ?? null),
    reasoning_tokens: usage === undefined ? null : (whole(usage.reasoningTokens) ?? null),
    // A record without a cost (an unpriced model, or a meter that predates prices) is unpriced.
    // A tool call costs nothing (it is not unpriced): 0, so the rollups count it as priced.
    cost_nano:
      record.kind === 'tool' ? 0 : cost === undefined ? null : (whole(cost.nanoUsd) ?? null),
    list_cost_nano:
      record.kind === 'tool' ? 0 : cost === undefined ? null : (whole(cost.listNanoUsd) ?? null),
    price: cost === undefined ? null : cost.price,
    team: optionalText(record.team),
    end_user: optionalText(record.endUser),
    kind: record.kind ?? null,
    cached: record.cached === true ? true : null,
    saved_cost_nano:
      record.cached === true && record.savedCost != null
        ? (whole(record.savedCost.nanoUsd) ?? null)
        : null,
  }
}

/** Storable text, or null for none (an empty string is none: ids are never empty). */
function optionalText(text: string | undefined): string | null {
  if (typeof text !== 'string' || text === '') return null
  return storable(text)
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
  if (attempt.tier !== undefined) stored.tier = whole(attempt.tier) ?? 0
  if (attempt.strategy !== undefined) stored.strategy = storable(attempt.strategy)
  if (attempt.score !== undefined && Number.isFinite(attempt.score)) stored.score = attempt.score
  return stored
}

/**
 * True when the one attempt's upstream was chosen among several (a strategy, not the group's only
 * upstream): the row then keeps why, which its own columns cannot say.
 */
function chosen(record: UsageRecord): boolean {
  const strategy = record.attempts?.[0]?.strategy
  return strategy !== undefined && strategy !== 'only'
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
  cost_nano bigint, list_cost_nano bigint, price jsonb, team text, end_user text, kind text,
  cached boolean, saved_cost_nano bigint`

const sumColumns = [
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'total_tokens',
  'cache_write_input_tokens',
  'cache_write_1h_input_tokens',
  'reasoning_tokens',
  'cost_nano',
  'list_cost_nano',
  'saved_cost_nano',
] as const

/**
 * The upsert of one rollup from the `inserted` rows: grouped by `groupBy` (the UTC day, key and
 * model every rollup has, after its own subject), in that order, so that concurrent batches from
 * several instances lock rollup rows in the same order and cannot deadlock each other.
 */
function rollupSql(table: string, groupBy: readonly string[], where: string): string {
  const columns = [...groupBy, 'requests', 'error_requests', 'aborted_requests', ...sumColumns]
  const selects = groupBy.map((column) =>
    column === 'day' ? `(ended_at AT TIME ZONE 'UTC')::date` : column,
  )
  const positions = groupBy.map((_, index) => index + 1).join(', ')
  const added = [
    'requests',
    'error_requests',
    'aborted_requests',
    ...sumColumns,
    'unpriced_requests',
    'cache_hits',
  ]
  return `INSERT INTO ${table} AS daily (${columns.join(', ')}, unpriced_requests, cache_hits)
  SELECT ${selects.join(', ')}, count(*),
    count(*) FILTER (WHERE outcome = 'error'), count(*) FILTER (WHERE outcome = 'aborted'),
    ${sumColumns.map((column) => `coalesce(sum(${column}), 0)`).join(', ')},
    count(*) FILTER (WHERE cost_nano IS NULL), count(*) FILTER (WHERE cached)
  FROM inserted${where}
  GROUP BY ${positions}
  ORDER BY ${positions}
  ON CONFLICT (${groupBy.join(', ')}) DO UPDATE SET
    ${added.map((column) => `${column} = daily.${column} + excluded.${column}`).join(',\n    ')},
    updated_at = now()
  RETURNING 1`
}

/**
 * One statement that inserts a batch (a JSON array in `$1`) and adds exactly the rows it inserted
 * to the daily rollups (per key; per team for rows of a team; per routing group for model calls,
 * not MCP tool calls, whose `group_id` names no group): a replayed request id is
 * skipped by `ON CONFLICT DO NOTHING` and so never counted twice, and the rollups commit with the
 * rows or not at all. Returns the number of rows inserted.
 */
export function insertBatchSql(tables: Tables): string {
  return `WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS r(${rowColumns})
), inserted AS (
  INSERT INTO ${tables.ledger} (request_id, started_at, key_id, group_id, provider_id, model,
    upstream_model, route, stream, outcome, status, input_tokens, output_tokens,
    cached_input_tokens, total_tokens, estimated, duration_ms, ended_at, attempts,
    cache_write_input_tokens, cache_write_1h_input_tokens, reasoning_tokens, cost_nano,
    list_cost_nano, price, team, end_user, kind, cached, saved_cost_nano)
  SELECT request_id, timestamptz 'epoch' + started_at_ms * interval '1 millisecond', key_id,
    group_id, provider_id, model, upstream_model, route, stream, outcome, status, input_tokens,
    output_tokens, cached_input_tokens, total_tokens, estimated, duration_ms,
    timestamptz 'epoch' + (started_at_ms + duration_ms) * interval '1 millisecond', attempts,
    cache_write_input_tokens, cache_write_1h_input_tokens, reasoning_tokens, cost_nano,
    list_cost_nano, price, team, end_user, kind, cached, saved_cost_nano
  FROM input
  ON CONFLICT (request_id, started_at) DO NOTHING
  RETURNING key_id, team, group_id, kind, ended_at, model, outcome, cached,
    ${sumColumns.join(', ')}
), rolled AS (
  ${rollupSql(tables.daily, ['key_id', 'day', 'model'], '')}
), team_rolled AS (
  ${rollupSql(tables.teamDaily, ['team', 'day', 'key_id', 'model'], ' WHERE team IS NOT NULL')}
), group_rolled AS (
  ${rollupSql(tables.groupDaily, ['group_id', 'day', 'key_id', 'model'], ' WHERE kind IS NULL')}
)
SELECT (SELECT count(*) FROM inserted)::text AS inserted, (SELECT count(*) FROM rolled)::text AS rolled,
  (SELECT count(*) FROM team_rolled)::text AS team_rolled,
  (SELECT count(*) FROM group_rolled)::text AS group_rolled`
}

/**
 * Creates the ledger partition of one month (`YYYY-MM`) unless it exists, under the same advisory
 * lock as migrations, so that instances racing on the first write of a month do not collide.
 *
 * Rows of that month may already sit in the default partition (written while the partition did not
 * exist: the month a database was created or upgraded in, or by an instance that could not create
 * it). Postgres refuses to create a partition whose rows the default partition holds, so the new
 * partition is made as a table of its own, those rows are moved into it, and it is attached, all
 * in one transaction: nothing is lost, and the default partition is left with no row of the month.
 * Columns are named from the catalogue, never `*`, so a ledger whose columns were added in another
 * order than its partitions' still moves each value to its column.
 */
export function ensurePartitionSql(tables: Tables, month: string): string {
  const start = `${month}-01`
  const [year, monthNumber] = month.split('-').map(Number) as [number, number]
  const next =
    monthNumber === 12
      ? `${year + 1}-01-01`
      : `${year}-${String(monthNumber + 1).padStart(2, '0')}-01`
  const partition = tables.qualify(tables.partitionName(month))
  const defaultPartition = tables.qualify(`${tables.prefix}_usage_ledger_default`)
  const from = `${start} 00:00:00+00`
  const to = `${next} 00:00:00+00`
  return `DO $mg_partition$
DECLARE
  columns text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext(${literal(tables.lockName)}));
  IF to_regclass(${literal(partition)}) IS NOT NULL THEN
    RETURN;
  END IF;
  CREATE TABLE ${partition} (LIKE ${tables.ledger} INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
  IF to_regclass(${literal(defaultPartition)}) IS NOT NULL THEN
    SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO columns
      FROM pg_attribute
      WHERE attrelid = ${literal(tables.ledger)}::regclass AND attnum > 0 AND NOT attisdropped;
    EXECUTE format(
      'WITH moved AS (DELETE FROM %s WHERE started_at >= %L AND started_at < %L RETURNING %s) '
      'INSERT INTO %s (%s) SELECT %s FROM moved',
      ${literal(defaultPartition)}, ${literal(from)}, ${literal(to)}, columns,
      ${literal(partition)}, columns, columns);
  END IF;
  ALTER TABLE ${tables.ledger} ATTACH PARTITION ${partition}
    FOR VALUES FROM (${literal(from)}) TO (${literal(to)});
END
$mg_partition$`
}

/** `YYYY-MM` of an instant, in UTC. */
export function utcMonth(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7)
}
