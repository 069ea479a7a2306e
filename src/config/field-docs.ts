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

/** The description of one field. */
export type FieldDoc = {
  /** One or two sentences, plain text: editors show it as it is. */
  text: string
  /** The value the gateway uses when the field is left out, where the zod schema does not say. */
  default?: unknown
  /** The default in words, when it is not one value ("all groups", "derived from the hash"). */
  defaultText?: string
  /** For a field that takes code: what it takes (`KeyStore`, `(secret) => string`). */
  type?: string
}

const codeOnly = (type: string, text: string, defaultText?: string): FieldDoc => ({
  type,
  text,
  ...(defaultText === undefined ? {} : { defaultText }),
})

/** The description of every config field, by path. */
export const configFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
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

  groups:
    'The groups, in routing order: a model is served by the first group the key may use that serves it.',
  'groups[].id':
    'The group id: letters, digits, `.`, `_` and `-`, starting with a letter or digit.',
  'groups[].protocol':
    'The protocol family of its upstreams: `openai` (OpenAI and every OpenAI-compatible server: vLLM, Ollama, DeepSeek, OpenRouter…), `anthropic` or `gemini`.',
  'groups[].models':
    'The call names it serves: `"gpt-4o-mini"`, or an object that maps a call name to the upstream\'s name and may set a profile and fallbacks.',
  'groups[].models[].name': 'The call name clients send.',
  'groups[].models[].upstreamModel': {
    text: 'The model name sent to the upstream.',
    defaultText: 'the call name',
  },
  'groups[].models[].profile': {
    text: "Overrides of the model's built-in profile (context window, output limit, reasoning control, sampling, structured output, input kinds); each field replaces the built-in value.",
    defaultText: 'the built-in profile',
  },
  'groups[].models[].profile.contextWindow': {
    text: 'Input plus output tokens the model takes.',
    defaultText: 'built-in',
  },
  'groups[].models[].profile.maxOutputTokens': {
    text: 'The output cap: client limits above it are lowered; the default when a client sets none. At most `contextWindow`.',
    defaultText: 'built-in',
  },
  'groups[].models[].profile.outputLimitField': {
    text: 'The OpenAI-style field that carries the output limit.',
    defaultText: 'built-in',
  },
  'groups[].models[].profile.reasoning': {
    text: 'How the model is asked to reason; replaces the whole built-in control.',
    defaultText: 'built-in',
  },
  'groups[].models[].profile.reasoning.kind':
    'The kind of control: `any` (unknown: the plain mapping, nothing clamped), `none` (reasoning fields dropped), `always` (reasons, takes no field), `effort` (OpenAI `reasoning_effort`), `budget` (a thinking token budget), `adaptive` (Anthropic adaptive thinking with an effort), `level` (Gemini 3 `thinkingLevel`) or `toggle` (on/off only).',
  'groups[].models[].profile.reasoning.efforts':
    'The efforts it accepts (kinds `effort` and `adaptive`).',
  'groups[].models[].profile.reasoning.min':
    'The smallest thinking budget in tokens (kind `budget`); at most `max`.',
  'groups[].models[].profile.reasoning.max':
    'The largest thinking budget in tokens (kind `budget`).',
  'groups[].models[].profile.reasoning.canDisable':
    'Whether reasoning can be turned off (kinds `budget` and `adaptive`).',
  'groups[].models[].profile.reasoning.dynamic':
    'Whether a budget of `-1` lets the model choose (kind `budget`).',
  'groups[].models[].profile.reasoning.levels': 'The thinking levels it accepts (kind `level`).',
  'groups[].models[].profile.reasoning.field':
    'The on/off field it takes: `thinking: {type}` or `enable_thinking` (kind `toggle`).',
  'groups[].models[].profile.sampling': {
    text: 'Which requests may carry `temperature`, `top_p` and `top_k`.',
    defaultText: 'built-in',
  },
  'groups[].models[].profile.temperatureOrTopP': {
    text: '`temperature` and `top_p` exclude each other: `top_p` is dropped when both are sent.',
    defaultText: 'built-in',
  },
  'groups[].models[].profile.maxTemperature': {
    text: 'Temperatures above it are lowered.',
    defaultText: 'built-in',
  },
  'groups[].models[].profile.structuredOutput': {
    text: 'How it gives structured output: a native schema, JSON mode with the schema as an instruction, a forced answer tool, or an instruction only.',
    defaultText: 'built-in',
  },
  'groups[].models[].profile.forcedToolChoice': {
    text: '`false`: a forced tool choice becomes `auto`.',
    defaultText: 'built-in',
  },
  'groups[].models[].profile.imageInput': {
    text: '`false`: a request with an image is refused with 400 before any upstream call.',
    defaultText: 'built-in',
  },
  'groups[].models[].profile.documentInput': {
    text: '`false`: a request with a PDF is refused with 400 before any upstream call.',
    defaultText: 'built-in',
  },
  'groups[].models[].profile.reasoningHistory': {
    text: 'Earlier reasoning goes back to the model as `reasoning_content` on assistant messages.',
    defaultText: 'built-in',
  },
  'groups[].models[].fallbacks': {
    text: "`<group>/<model>` call names tried in order once this group has no upstream left, each in its group's protocol; checked when the config loads. A fallback's own fallbacks are not followed.",
    defaultText: 'none',
  },
  'groups[].upstreams':
    'Its upstreams: an HTTP upstream (`{ "baseUrl", … }`), the built-in mock (`{ "provider": "mock", … }`), or in code an `UpstreamProvider` object.',
  'groups[].upstreams[].id': {
    text: 'The upstream id in logs, events and `health()`.',
    defaultText: '<group id>#<index>',
  },
  'groups[].upstreams[].baseUrl':
    "The upstream's base URL, as its SDK takes it: OpenAI's includes `/v1` (`https://api.openai.com/v1`); Anthropic's and Gemini's are the bare host (`https://api.anthropic.com`).",
  'groups[].upstreams[].apiKey': {
    text: 'The key sent upstream: as a bearer token (`openai`), `x-api-key` (`anthropic`) or `x-goog-api-key` (`gemini`). Usually `"${NAME}"`.',
    defaultText: 'none',
  },
  'groups[].upstreams[].headers': {
    text: 'Headers sent on every call to this upstream (an organisation id).',
    defaultText: 'none',
  },
  'groups[].upstreams[].weight': {
    text: 'Its share of the calls, by weight among the upstreams fit to be tried.',
    default: 1,
  },
  'groups[].upstreams[].responses': {
    text: 'An upstream of an `openai` group that serves `/v1/responses` (api.openai.com, Azure): Responses API calls go there as they are. The mock serves it too.',
    default: false,
  },
  'groups[].upstreams[].maxConcurrent': {
    text: 'Calls it is given at once (a stream until it ends); past it another upstream is picked, or 503 (529 on Anthropic routes) at once.',
    defaultText: 'none',
  },
  'groups[].upstreams[].apiKeys':
    'A pool of keys instead of `apiKey`, rotated per call (see `keyPool`); a key the upstream refuses leaves rotation for a while.',
  'groups[].upstreams[].provider': '`"mock"`: the built-in mock upstream, for demos and tests.',
  'groups[].upstreams[].reply': {
    text: "The mock's fixed reply.",
    defaultText: 'echoes the last user message',
  },
  'groups[].upstreams[].chunkDelayMs': {
    text: "The mock's pause between streamed chunks.",
    default: 0,
  },

  'groups[].retry':
    'How a failed attempt is retried in this group (failover): attempts, deadline, backoff and the retry budget.',
  'groups[].retry.attempts': {
    text: 'Attempts per request in this group, the first included; `1` turns failover off.',
    default: 3,
  },
  'groups[].retry.deadlineMs': {
    text: 'No new attempt starts once this long has passed since the request reached the retry loop.',
    default: 60_000,
  },
  'groups[].retry.backoffMs': {
    text: 'The first retry waits between half of this and all of it (jitter); each next retry twice as long.',
    default: 50,
  },
  'groups[].retry.maxBackoffMs': { text: 'The longest backoff.', default: 1000 },
  'groups[].retry.maxRetryAfterMs': {
    text: 'The longest `retry-after` the gateway waits before retrying the same upstream; a longer one sends the retry to another.',
    default: 5000,
  },
  'groups[].retry.budget':
    'The retry budget, per group and instance: over any `windowMs`, retries stay within `share` × requests + `minRetries`.',
  'groups[].retry.budget.share': {
    text: 'Retries allowed per request, on average over the window.',
    default: 0.2,
  },
  'groups[].retry.budget.minRetries': {
    text: 'Retries allowed per window whatever the traffic, so a quiet gateway still retries.',
    default: 3,
  },
  'groups[].retry.budget.windowMs': { text: "The budget's sliding window.", default: 10_000 },
  'groups[].balancing': {
    text: 'How an upstream is chosen among those fit to be tried: at random by weight, or the one with the fewest calls in flight per unit of weight.',
    default: 'weighted',
  },
  'groups[].sessionAffinity': {
    text: 'Keep a session\'s requests on one upstream (and pooled key) while it is healthy: `true` reads the session hint from the request, `{ "header" }` from a header first.',
    defaultText: 'off',
  },
  'groups[].sessionAffinity.header': {
    text: "The request header that carries the session hint, read before the protocol's own hint (`prompt_cache_key` or `user`, `metadata.user_id`).",
    defaultText: 'none',
  },
  'groups[].circuitBreaker':
    'When an upstream of the group is skipped after failures, and for how long; `false` turns circuit breaking off.',
  'groups[].circuitBreaker.consecutiveFailures': {
    text: 'Failures in a row that open the circuit.',
    default: 5,
  },
  'groups[].circuitBreaker.failureRatio': {
    text: 'Share of failed attempts in the window that opens it (`1` turns the rule off).',
    default: 0.5,
  },
  'groups[].circuitBreaker.minimumCalls': {
    text: 'Attempts the window must hold before `failureRatio` applies.',
    default: 10,
  },
  'groups[].circuitBreaker.windowMs': { text: "The failure ratio's window.", default: 60_000 },
  'groups[].circuitBreaker.cooldownMs': {
    text: 'The first opening when the upstream gave no `retry-after`; each reopening after a failed probe doubles it.',
    default: 10_000,
  },
  'groups[].circuitBreaker.maxCooldownMs': {
    text: 'The longest opening, doubled or told by `retry-after`.',
    default: 300_000,
  },
  'groups[].circuitBreaker.jitter': {
    text: '± share of randomness on computed cooldowns.',
    default: 0.2,
  },
  'groups[].keyPool': 'How the keys of a pooled upstream (`apiKeys`) are used.',
  'groups[].keyPool.rotation': {
    text: 'Which key the next call uses: in turn, or the one with the fewest calls in flight.',
    default: 'round-robin',
  },
  'groups[].keyPool.rejectedCooldownMs': {
    text: 'How long a key the upstream refused (401, 403) stays out of rotation.',
    default: 3_600_000,
  },
  'groups[].keyPool.quotaCooldownMs': {
    text: 'How long a key out of quota or credit (`insufficient_quota`, 402, `billing_error`) stays out of rotation.',
    default: 600_000,
  },
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
    'A `redis://` or `rediss://` URL: the usage meter, the Responses store and open circuits are shared by every instance.',
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
}
