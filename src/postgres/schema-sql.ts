import type { Tables } from './tables'

/** One schema migration: a version, a name, and its DDL (run inside one `DO` block). */
export type Migration = { version: number; name: string; sql: (tables: Tables) => string }

/**
 * The schema, in order. Never edit a released migration: add the next one.
 *
 * - `api_keys`: one row per database key. Only the SHA-256 of the key is stored; `public_id` (the
 *   middle of `sk-mg-<public id>-<secret>`) finds the row. A trigger notifies every change on the
 *   key channel, so instances drop their cached copy even when an operator edits the table by
 *   hand.
 * - `usage_ledger`: one row per request, keyed by request id (and start time, which a partitioned
 *   table's key must include). Range-partitioned by month on `started_at`, so retention drops a
 *   month's partition instead of deleting rows (spend-log tables of other gateways bloat to
 *   hundreds of GB with DELETE-based retention); a default partition catches any row whose month
 *   has no partition yet.
 * - `usage_daily`: requests and tokens per key, UTC day and model, upserted in the same statement
 *   that inserts the ledger rows, so the two always agree. A request counts on the day it ended
 *   (`ended_at`), when the meter settled it: the same day a daily budget counted it.
 * - `usage_ledger.attempts` (version 2): the upstream attempts of a request that made more than
 *   one (failover, a fallback), as a JSON array in order; null when the row's own `group_id`,
 *   `provider_id` and `status` already tell the one attempt (or a request that made none). Since
 *   routing tiers and strategies, an attempt also carries why its upstream was chosen (`tier`,
 *   `strategy`, `score`), and a one-attempt request whose upstream was chosen among several keeps
 *   its array too: JSON fields, so no migration (a gateway that predates them writes rows without).
 * - Money (version 3): each ledger row's token categories apart (5-minute and 1-hour cache
 *   writes, reasoning), its cost in nano-USD as charged (`cost_nano`) and at list price
 *   (`list_cost_nano`), and the price it was charged at (`price`, JSON), so that a later price
 *   change never rewrites it; `cost_nano` is null for a request on an unpriced model — and for
 *   every row written before version 3, which nobody priced: unpriced, never free. The daily
 *   rollup gains the same sums and `unpriced_requests` (every request of a day rolled up before
 *   version 3 counts as unpriced: its rows are upgraded in place). Keys gain `budget` (money
 *   budgets, JSON) and `price_multiplier`.
 * - Teams (version 4): `teams`, one row per team of database keys, with the limits a key has
 *   (groups, quota, limits, money budgets); keys gain `team`, the id of a team in that table or in
 *   the config (checked by the admin functions, not by a foreign key: a config team has no row).
 *   Ledger rows gain the `team` and the `end_user` of the request (nullable, no default: no row is
 *   rewritten). `usage_daily_team` rolls up each team's requests per key, UTC day and model in the
 *   same statement as the other rollup; `usage_daily` is left as it is, so a gateway of version 3
 *   still writes to a version 4 database during a rolling upgrade (its rows have no team).
 * - MCP tool calls (version 5): ledger rows gain `kind` (`tool` for a tool call of the MCP
 *   gateway, null for a model call). A tool call's row names the server as `provider_id`, the
 *   prefixed tool as `model` and the tool as `upstream_model`, with no tokens and a cost of 0.
 * - Response cache (version 6): ledger rows gain `cached` (true
 *   for an answer from the response cache) and `saved_cost_nano` (what the original call cost),
 *   nullable without a default; both rollups gain `cache_hits` and `saved_cost_nano`, 0 by
 *   default, so a gateway of an earlier version still writes to a version 6 database. It touches
 *   nothing version 5 made, so it applies before or after it.
 * - Budget indexes (version 7): the ledger's part of a day that re-seeds a team's, the
 *   organisation's or an end user's budget (`ledger-sums.ts`) is read through an index of its own —
 *   `(team, ended_at)` and `(key_id, end_user, ended_at)`, partial, and `(ended_at)` — instead of
 *   every partition of the ledger. Indexes only: a gateway of version 6 runs on it unchanged.
 *   Building them reads the ledger once and blocks its writes meanwhile, as version 5's index did.
 * - Per routing group (version 8): `usage_daily_group` rolls up each group's model calls per key,
 *   UTC day and model (the group that answered: a fallback's, when one did; MCP tool calls are in
 *   no group), in the same statement as the other rollups, so that reports per group read a few
 *   rows per group and day, never the ledger (whose old months retention drops). It is a new
 *   table, not a column of `usage_daily`: changing that table's key would rewrite it, and a gateway
 *   of version 6, which upserts on `(key_id, day, model)`, could no longer write to it during a
 *   rolling upgrade. It starts empty: days before the upgrade have no per-group rows (filling it
 *   from the ledger would read every row under the migration lock).
 */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'api keys, usage ledger and daily rollup',
    sql: (t) => `
CREATE TABLE ${t.keys} (
  id text PRIMARY KEY,
  public_id text NOT NULL UNIQUE,
  secret_hash text NOT NULL CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
  name text,
  groups jsonb,
  quota_tokens bigint CHECK (quota_tokens >= 0),
  limits jsonb NOT NULL DEFAULT '{}'::jsonb,
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE FUNCTION ${t.qualify(`${t.prefix}_notify_key_change`)}() RETURNS trigger
LANGUAGE plpgsql AS $mg_function$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify(TG_ARGV[0], OLD.public_id);
  ELSE
    PERFORM pg_notify(TG_ARGV[0], NEW.public_id);
  END IF;
  RETURN NULL;
END
$mg_function$;
CREATE TRIGGER "${t.prefix}_api_keys_notify" AFTER INSERT OR UPDATE OR DELETE ON ${t.keys}
  FOR EACH ROW EXECUTE FUNCTION ${t.qualify(`${t.prefix}_notify_key_change`)}('${t.keyChannel}');

CREATE TABLE ${t.ledger} (
  request_id text NOT NULL,
  started_at timestamptz NOT NULL,
  key_id text NOT NULL,
  group_id text NOT NULL,
  provider_id text NOT NULL,
  model text NOT NULL,
  upstream_model text NOT NULL,
  route text NOT NULL,
  stream boolean NOT NULL,
  outcome text NOT NULL,
  status smallint NOT NULL,
  input_tokens bigint,
  output_tokens bigint,
  cached_input_tokens bigint,
  total_tokens bigint,
  estimated boolean NOT NULL DEFAULT false,
  duration_ms integer NOT NULL,
  ended_at timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (request_id, started_at)
) PARTITION BY RANGE (started_at);
CREATE INDEX "${t.prefix}_usage_ledger_key_ended" ON ${t.ledger} (key_id, ended_at);
CREATE TABLE ${t.qualify(`${t.prefix}_usage_ledger_default`)} PARTITION OF ${t.ledger} DEFAULT;

CREATE TABLE ${t.daily} (
  key_id text NOT NULL,
  day date NOT NULL,
  model text NOT NULL,
  requests bigint NOT NULL,
  error_requests bigint NOT NULL,
  aborted_requests bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  cached_input_tokens bigint NOT NULL,
  total_tokens bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key_id, day, model)
);`,
  },
  {
    version: 2,
    name: 'upstream attempts of a request that made more than one',
    // Nullable and without a default: adding it rewrites no row, however large the ledger.
    sql: (t) => `ALTER TABLE ${t.ledger} ADD COLUMN attempts jsonb;`,
  },
  {
    version: 3,
    name: 'token categories, cost and price of each request; key budgets in money',
    // The ledger's new columns are nullable without a default: no row is rewritten, however large
    // the ledger; its old rows read as unpriced. The rollup is small: its rows are upgraded.
    sql: (t) => `ALTER TABLE ${t.ledger}
  ADD COLUMN cache_write_input_tokens bigint,
  ADD COLUMN cache_write_1h_input_tokens bigint,
  ADD COLUMN reasoning_tokens bigint,
  ADD COLUMN cost_nano bigint,
  ADD COLUMN list_cost_nano bigint,
  ADD COLUMN price jsonb;
ALTER TABLE ${t.daily}
  ADD COLUMN cache_write_input_tokens bigint NOT NULL DEFAULT 0,
  ADD COLUMN cache_write_1h_input_tokens bigint NOT NULL DEFAULT 0,
  ADD COLUMN reasoning_tokens bigint NOT NULL DEFAULT 0,
  ADD COLUMN cost_nano bigint NOT NULL DEFAULT 0,
  ADD COLUMN list_cost_nano bigint NOT NULL DEFAULT 0,
  ADD COLUMN unpriced_requests bigint NOT NULL DEFAULT 0;
UPDATE ${t.daily} SET unpriced_requests = requests;
ALTER TABLE ${t.keys}
  ADD COLUMN budget jsonb,
  ADD COLUMN price_multiplier double precision CHECK (price_multiplier > 0);`,
  },
  {
    version: 4,
    name: 'teams; the team of keys and ledger rows; end users of ledger rows',
    // The ledger's new columns are nullable without a default: no row is rewritten.
    sql: (t) => `
CREATE TABLE ${t.teams} (
  id text PRIMARY KEY,
  name text,
  groups jsonb,
  quota_tokens bigint CHECK (quota_tokens >= 0),
  limits jsonb NOT NULL DEFAULT '{}'::jsonb,
  budget jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE ${t.keys} ADD COLUMN team text;
CREATE INDEX "${t.prefix}_api_keys_team" ON ${t.keys} (team) WHERE team IS NOT NULL;
ALTER TABLE ${t.ledger} ADD COLUMN team text, ADD COLUMN end_user text;
CREATE TABLE ${t.teamDaily} (
  team text NOT NULL,
  day date NOT NULL,
  key_id text NOT NULL,
  model text NOT NULL,
  requests bigint NOT NULL,
  error_requests bigint NOT NULL,
  aborted_requests bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  cached_input_tokens bigint NOT NULL,
  total_tokens bigint NOT NULL,
  cache_write_input_tokens bigint NOT NULL,
  cache_write_1h_input_tokens bigint NOT NULL,
  reasoning_tokens bigint NOT NULL,
  cost_nano bigint NOT NULL,
  list_cost_nano bigint NOT NULL,
  unpriced_requests bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team, day, key_id, model)
);
CREATE INDEX "${t.prefix}_usage_daily_team_day" ON ${t.teamDaily} (day);`,
  },
  {
    version: 5,
    name: 'the kind of a ledger row: tool for an MCP tool call',
    // Nullable without a default (null: a model call): no row is rewritten. The partial index
    // serves "who called which tool" without growing with model calls.
    sql: (t) => `ALTER TABLE ${t.ledger} ADD COLUMN kind text;
CREATE INDEX "${t.prefix}_usage_ledger_tool_calls" ON ${t.ledger} (key_id, ended_at)
  WHERE kind = 'tool';`,
  },
  {
    version: 6,
    name: 'response cache hits and the money they saved',
    // Nullable ledger columns without a default: no row is rewritten. Rollup defaults of 0 are
    // metadata-only (Postgres 11+), and old rows rightly have no hits.
    sql: (
      t,
    ) => `ALTER TABLE ${t.ledger} ADD COLUMN cached boolean, ADD COLUMN saved_cost_nano bigint;
ALTER TABLE ${t.daily}
  ADD COLUMN cache_hits bigint NOT NULL DEFAULT 0,
  ADD COLUMN saved_cost_nano bigint NOT NULL DEFAULT 0;
ALTER TABLE ${t.teamDaily}
  ADD COLUMN cache_hits bigint NOT NULL DEFAULT 0,
  ADD COLUMN saved_cost_nano bigint NOT NULL DEFAULT 0;`,
  },
  {
    version: 7,
    name: 'ledger indexes for the budgets of teams, the organisation and end users',
    // A team's, an end user's and the organisation's budget re-seed from the ledger's rows that
    // ended since midnight (the whole period for an end user): without these, each read every
    // partition. Partial where most rows have no team or end user.
    sql: (t) => `CREATE INDEX "${t.prefix}_usage_ledger_team_ended" ON ${t.ledger} (team, ended_at)
  WHERE team IS NOT NULL;
CREATE INDEX "${t.prefix}_usage_ledger_end_user_ended" ON ${t.ledger} (key_id, end_user, ended_at)
  WHERE end_user IS NOT NULL;
CREATE INDEX "${t.prefix}_usage_ledger_ended" ON ${t.ledger} (ended_at);`,
  },
  {
    version: 8,
    name: 'the daily rollup per routing group',
    sql: (t) => `
CREATE TABLE ${t.groupDaily} (
  group_id text NOT NULL,
  day date NOT NULL,
  key_id text NOT NULL,
  model text NOT NULL,
  requests bigint NOT NULL,
  error_requests bigint NOT NULL,
  aborted_requests bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  cached_input_tokens bigint NOT NULL,
  total_tokens bigint NOT NULL,
  cache_write_input_tokens bigint NOT NULL,
  cache_write_1h_input_tokens bigint NOT NULL,
  reasoning_tokens bigint NOT NULL,
  cost_nano bigint NOT NULL,
  list_cost_nano bigint NOT NULL,
  unpriced_requests bigint NOT NULL,
  cache_hits bigint NOT NULL,
  saved_cost_nano bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, day, key_id, model)
);
CREATE INDEX "${t.prefix}_usage_daily_group_day" ON ${t.groupDaily} (day);`,
  },
]

/** The schema version this code needs. */
export const latestSchemaVersion = migrations[migrations.length - 1]!.version
