/**
 * What each config field is for: the descriptions (and the defaults the code applies where the
 * zod schema does not) of the generated JSON Schema (`config.schema.json`) and reference table
 * (`docs/configuration.md`), kept beside the schema. Only the generator imports this module
 * (`npm run generate:config-docs`), so none of it is in the gateway's bundle; the generator fails
 * when a field of the schema has no entry here, or an entry names no field.
 *
 * Paths are as the reference prints them: `[]` is any element of an array. Defaults from the
 * code's own constants (retry, circuit breaker, key pool, lease) are checked against them by
 * `test/config/config-reference.test.ts`.
 */
import { codeOnly, type FieldDoc } from './field-doc'
import { consoleFieldDocs } from './field-docs-console'
import { telemetryFieldDocs } from './field-docs-telemetry'
import { groupFieldDocs } from './field-docs-groups'
import { spendFieldDocs } from './field-docs-spend'
import { teamFieldDocs } from './field-docs-teams'
import { mcpFieldDocs } from './field-docs-mcp'

export type { FieldDoc } from './field-doc'

/** The description of every config field, by path. */
export const configFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  ...groupFieldDocs,
  ...spendFieldDocs,
  ...teamFieldDocs,
  ...mcpFieldDocs,
  ...consoleFieldDocs,
  ...telemetryFieldDocs,
  $schema:
    'The JSON Schema of the file, for editors: `"./node_modules/model-gateway/config.schema.json"`. The gateway ignores it.',
  groupIdRouting:
    "Accept `<group id>/<model>` as a request's model, to pin a group: `gpt/gpt-4o-mini` is served by group `gpt`. A prefix that is no group id stays part of the model name.",
  basePath: {
    text: 'Serve under a path prefix: `"/llm"` serves `/llm/v1/chat/completions`.',
    defaultText: 'none',
  },
  maxBodyBytes: { text: 'Request body limit; a larger body gets 413.', defaultText: '32 MiB' },
  maxResponseBytes: {
    text: 'Limit on a non-stream upstream answer and on one stream event; past it, 502 "upstream answer too large".',
    defaultText: '64 MiB',
  },
  upstreamTimeoutMs: "Time until the upstream's answer (JSON) or first event (stream); then 504.",
  defaultOutputTokens:
    'The output limit of a call whose client set none, for a model whose profile knows no maximum: sent to Anthropic, and reserved against quotas.',
  streamIdleTimeoutMs:
    'Longest silence between stream events; then the stream ends with an error event.',
  maxStreamMs: {
    text: "Longest a stream may last, from the upstream call to its end; then 504 before the first event, or the stream's error event after it.",
    defaultText: 'none',
  },
  maxInFlight: {
    text: 'Requests served at once (a stream counts until it ends); past it 503 at once (529 on Anthropic routes) with `retry-after: 1`, never a queue.',
    defaultText: 'none',
  },
  forwardHeaders:
    'Client headers copied to the upstream. Credential headers and the request id headers the gateway sets itself (`x-request-id`, `x-client-request-id`) are refused.',

  cors: {
    text: 'Answers for browser apps that call the gateway with a key: preflights answered without a key, `access-control-*` headers on every answer to an allowed origin, errors included.',
    defaultText: 'off (a preflight gets 405)',
  },
  'cors.origins':
    'The origins allowed, as browsers send them (scheme, host, port; no path), or `"*"` for any origin — only when written so.',
  'cors.allowHeaders':
    'Request headers allowed beyond those the official SDKs send and `forwardHeaders`; a name ending in `*` allows every header it begins.',
  'cors.exposeHeaders':
    "Answer headers a page may read beyond the gateway's own (request id, retry hints, rate-limit and `x-gateway-*` headers).",
  'cors.maxAgeSeconds': {
    text: "How long a browser may keep a preflight's answer.",
    defaultText: '7200 (Chromium’s cap)',
  },
  upstreamKinds: codeOnly(
    'UpstreamKind[]',
    "Upstream kinds of your own, named by an upstream entry's `provider` like the built-in `openai`, `anthropic`, `gemini` and `mock` (docs/upstream-kinds.md).",
    'none',
  ),
  groupRegistry: codeOnly(
    'GroupRegistry',
    'The groups, from your own registry instead of `groups`.',
    'none',
  ),

  keys: {
    text: "The API keys clients use. With a `keyStore` (`state.postgres`) too, both work: the config's keys are asked first.",
    defaultText: 'none',
  },
  'keys[].key':
    'The plaintext key: `sk-` and at least 20 characters in all. Give `key` or `keyHash`, not both.',
  'keys[].keyHash': "The key's SHA-256 instead of the key: `sha256:` and 64 hex digits.",
  'keys[].id': {
    text: 'The key id in usage records, events and logs.',
    defaultText: 'key_ and 12 hex digits of the hash',
  },
  'keys[].name': {
    text: 'A name for people: `GET /v1/usage` shows it as `planName`.',
    defaultText: 'the id',
  },
  'keys[].groups': { text: 'The groups this key may use.', defaultText: 'all groups' },
  'keys[].quota': 'A lifetime allowance.',
  'keys[].quota.tokens': {
    text: 'Input plus output tokens the key may use in all.',
    defaultText: 'unlimited',
  },
  'keys[].limits': 'Rate limits and budgets, all checked in one step before any upstream call.',
  'keys[].limits.requestsPerMinute': {
    text: 'Requests per minute (a token bucket that refills continuously).',
    defaultText: 'none',
  },
  'keys[].limits.inputTokensPerMinute': {
    text: 'Input tokens per minute, estimated before and corrected after.',
    defaultText: 'none',
  },
  'keys[].limits.outputTokensPerMinute': {
    text: 'Output tokens per minute, estimated before and corrected after.',
    defaultText: 'none',
  },
  'keys[].limits.concurrency': { text: 'Requests in flight at once.', defaultText: 'none' },
  'keys[].limits.tokensPerDay': {
    text: 'Input plus output tokens per UTC day; `0` refuses every request.',
    defaultText: 'none',
  },
  'keys[].limits.tokensPerMonth': {
    text: 'Input plus output tokens per UTC month.',
    defaultText: 'none',
  },
  'keys[].disabled': { text: 'A disabled key gets 401.', default: false },
  'keys[].expiresAt': {
    text: 'An ISO date-time with offset; from then on the key gets 401.',
    defaultText: 'never',
  },
  keyStore: codeOnly(
    'KeyStore',
    'Where keys are looked up (a database); the CLI makes one of `state.postgres`.',
    "the config's keys",
  ),
  usageMeter: codeOnly(
    'UsageMeter',
    'Records usage and enforces limits and quotas; the CLI makes one of `state.redis`.',
    'memory',
  ),
  usageLedger: codeOnly(
    'UsageLedger',
    "Receives every settled request's usage record; the CLI makes one of `state.postgres`.",
    'none',
  ),

  state:
    'Shared state: where keys, usage and limits live when several instances or restarts must agree. The CLI and `createGatewayWithState()` connect it; `createGateway()` takes the parts it names instead.',
  'state.redis':
    'Where the usage meter, the Responses store and open circuits are shared by every instance: a `redis://` or `rediss://` URL (one node), `{"cluster": [seed URLs]}` (Redis Cluster: redirections and topology changes followed) or `{"sentinel": {"nodes": [sentinel URLs], "name": "mymaster"}}` (a Sentinel-managed primary, followed across failovers). See docs/shared-state.md, "Redis Cluster and Sentinel".',
  'state.redis.cluster':
    'Redis Cluster: seed node URLs (one is enough; list several so that a start survives one being down). The driver follows `MOVED`/`ASK` redirections and topology changes; every script keeps its keys in one hash slot.',
  'state.redis.sentinel':
    'A primary managed by Redis Sentinel: the client asks the sentinels where the primary is and follows it across failovers.',
  'state.redis.sentinel.nodes': 'Sentinel URLs (`redis://host:26379`), at least one.',
  'state.redis.sentinel.name':
    'The name the sentinels monitor the primary under (`sentinel monitor <name> …`).',
  'state.postgres':
    'A `postgres://` or `postgresql://` URL: API keys and the usage ledger persist; keys are created and revoked without a restart.',
  'state.prefix': {
    text: 'The namespace of Redis keys and Postgres tables, so that gateways can share one server: 1 to 24 lowercase letters, digits and `_`.',
    default: 'mg',
  },
  'state.schema': {
    text: 'The Postgres schema of the tables (created by `migrate`).',
    defaultText: "the connection's search_path",
  },
  'state.keyCache': 'How long Postgres key lookups are cached per instance.',
  'state.keyCache.ttlMs': { text: 'How long a found key is cached (0: no cache).', default: 5000 },
  'state.keyCache.negativeTtlMs': { text: 'How long an unknown key id is cached.', default: 5000 },
  'state.ledger': 'Batching of the Postgres usage ledger.',
  'state.ledger.flushIntervalMs': {
    text: 'Longest a usage record waits before it is written.',
    default: 1000,
  },
  'state.ledger.batchSize': {
    text: 'Rows per INSERT; a queue this long is written at once.',
    default: 500,
  },
  'state.ledger.maxQueue': {
    text: 'Most records held in memory while Postgres is slow or down; past it they are dropped.',
    default: 100_000,
  },
  'state.ledger.drainTimeoutMs': {
    text: 'How long shutdown keeps trying to write the queue.',
    default: 8000,
  },
  'state.redisTimeoutMs': {
    text: 'Longest a Redis call may take before the failure policy applies.',
    default: 200,
  },
  'state.leaseMs': {
    text: 'Lease of a reservation in the shared meter, renewed every third while the request lives.',
    default: 60_000,
  },
  'state.onFailure': 'What the shared meter does while Redis does not answer.',
  'state.onFailure.budgets': {
    text: '`closed`: keys with a token budget are refused (503); `open`: they are admitted unchecked.',
    default: 'closed',
  },
  'state.onFailure.windows': {
    text: '`local`: windows and concurrency are enforced by each instance at `limit / expectedInstances`; `closed`: refused (503).',
    default: 'local',
  },
  'state.onFailure.expectedInstances': {
    text: 'The instances sharing the limits: the local share is `limit / expectedInstances` (at least 1).',
    default: 2,
  },
  responseStore: codeOnly(
    'ResponseStore',
    'Where stored Responses are kept; the CLI shares them through `state.redis`.',
    'memory',
  ),
  responseCache: codeOnly(
    'ResponseCacheStore',
    'Where groups with `cache` keep their answers ([Response cache](response-cache.md)); the CLI shares them through `state.redis`.',
    'memory: 10 000 entries, 64 MiB',
  ),
  upstreamSelector: codeOnly(
    'UpstreamSelector',
    "Chooses each attempt's upstream and hears how it went.",
    'the health selector',
  ),
  circuitStore: codeOnly(
    'CircuitStore',
    'Where open circuits are shared with other instances; the CLI uses `state.redis`.',
    'not shared',
  ),
  env: {
    text: 'Where `${NAME}` references are read. Workers pass their `env` binding.',
    defaultText: 'process.env',
  },
  fetch: codeOnly(
    'typeof fetch',
    'The `fetch` upstream calls are made with; the CLI uses one over `node:http`.',
    'globalThis.fetch',
  ),
  cloudCredentials: codeOnly(
    '{ aws?, google?, azure? }',
    "The runtime's default cloud credential chains, for a Bedrock, Vertex AI or Azure upstream that gives no credentials of its own; on Node, `nodeCloudCredentials()` from `model-gateway/node` (the CLI passes it).",
    'none',
  ),
  hashKey: codeOnly(
    '(secret) => string | Promise<string>',
    'Hashes presented keys to hex SHA-256; on Node, `serveGateway` and `toNodeHandler` use `node:crypto`.',
    'Web Crypto',
  ),
  generateId: codeOnly(
    '() => string',
    'Makes request and response ids (for deterministic tests).',
    'random ids',
  ),
  now: codeOnly(
    '() => number',
    'The clock, in milliseconds (for deterministic tests).',
    'Date.now',
  ),
  random: codeOnly(
    '() => number',
    'Random numbers in [0, 1) (for deterministic tests).',
    'Math.random',
  ),
  onEvent: codeOnly(
    '(event: RequestEvent) => void',
    'Receives one event per completed request.',
    'none',
  ),
  interceptors: codeOnly(
    'CallInterceptor[]',
    'Code around every upstream call, in order: each may answer the call before it is made (a cache hit) and sees every answer once it has ended (docs/interceptors.md).',
    'none',
  ),
}
