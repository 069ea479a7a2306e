import type { FieldDoc } from './field-doc'
import { anthropicFieldDocs } from '../upstream/anthropic/field-docs'
import { bedrockFieldDocs } from '../upstream/bedrock/field-docs'
import { azureFieldDocs } from '../upstream/azure/field-docs'
import { geminiFieldDocs } from '../upstream/gemini/field-docs'
import { mockFieldDocs } from '../upstream/mock/field-docs'
import { openaiFieldDocs } from '../upstream/openai/field-docs'
import { vertexFieldDocs } from '../upstream/vertex/field-docs'

/**
 * The fields of `groups[].upstreams[]`: each built-in kind's, from its own folder, by their path
 * in an entry (kinds that share a field share its description).
 */
function upstreamEntryDocs(): Record<string, string | FieldDoc> {
  const docs: Record<string, string | FieldDoc> = {}
  for (const kind of [
    openaiFieldDocs,
    anthropicFieldDocs,
    geminiFieldDocs,
    bedrockFieldDocs,
    azureFieldDocs,
    vertexFieldDocs,
    mockFieldDocs,
  ]) {
    for (const [field, doc] of Object.entries(kind)) docs[`groups[].upstreams[].${field}`] = doc
  }
  return docs
}

/** The descriptions of `groups[]` and everything in it (see `field-docs.ts`). */
export const groupFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  groups:
    'The groups, in routing order: a model is served by the first group the key may use that serves it.',
  'groups[].id':
    'The group id: letters, digits, `.`, `_` and `-`, starting with a letter or digit.',
  'groups[].protocol':
    'The protocol family of its upstreams: `openai` (OpenAI and every OpenAI-compatible server: vLLM, Ollama, DeepSeek, OpenRouter…), `anthropic`, `gemini`, or `converse` (AWS Bedrock\'s Converse API: every client protocol is translated to it; its upstreams name a kind that serves it, `"provider": "bedrock"`).',
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
  'groups[].models[].profile.reasoning.clearThinking':
    "With `false`, a request with thinking on also sends GLM's `clear_thinking: false` (preserved thinking; kind `toggle`).",
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
  'groups[].models[].profile.toolUse': {
    text: '`false`: a request with tools is refused with 400 before any upstream call (Converse groups).',
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
    text: "Reasoning the model did not hand out itself (another model's, older history) goes back on assistant messages, in `reasoningField`; the reasoning it handed out always goes back to it.",
    defaultText: 'built-in',
  },
  'groups[].models[].profile.reasoningField': {
    text: 'The member earlier reasoning goes back in: `reasoning_content`, `reasoning` or `reasoning_details` (which also asks for `reasoning_split: true`, as MiniMax takes it).',
    defaultText: 'built-in',
  },
  'groups[].models[].profile.embedding': {
    text: "The model embeds: its vectors' default length (`dimensions`), whether a shorter one may be asked (`shortens`), and the most tokens an input may hold (`maxInputTokens`). The model lists mark it, and the embedding routes bound the answer by it.",
    defaultText: 'built-in',
  },
  'groups[].models[].profile.embedding.dimensions': 'The length of its vectors by default.',
  'groups[].models[].profile.embedding.shortens':
    'Whether it takes a smaller `dimensions` / `outputDimensionality` (Matryoshka models).',
  'groups[].models[].profile.embedding.maxInputTokens': 'The most tokens one input may hold.',
  'groups[].models[].fallbacks': {
    text: "`<group>/<model>` call names tried in order once this group has no upstream left, each in its group's protocol; checked when the config loads. A fallback's own fallbacks are not followed.",
    defaultText: 'none',
  },
  'groups[].upstreams':
    'Its upstreams: an HTTP upstream of the group\'s family (`{ "baseUrl", … }`), an upstream of a named kind (`{ "provider": "mock", … }`), or in code an `UpstreamProvider` object.',
  ...upstreamEntryDocs(),
  'groups[].upstreams[].provider':
    'The upstream kind: `openai`, `anthropic` or `gemini` (an HTTP upstream of that family, as an entry without `provider` is), `azure` (Azure OpenAI, in an `openai` group, see [azure-openai.md](azure-openai.md)), `vertex` (Gemini and Claude on Google Vertex AI, see [vertex-ai.md](vertex-ai.md)), `bedrock` (AWS Bedrock: Claude in an `anthropic` group, other models in a `converse` group, see [aws-bedrock.md](aws-bedrock.md)), `mock` (the built-in mock upstream, for demos and tests), or a kind of your own passed in `upstreamKinds`.',

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
    text: "Retries allowed per window whatever the traffic, so a quiet gateway still retries; the default is above the circuit's `consecutiveFailures`, so a dead upstream's circuit opens before its clients are refused a failover.",
    default: 10,
  },
  'groups[].retry.budget.windowMs': { text: "The budget's sliding window.", default: 10_000 },
  'groups[].balancing': {
    text: "How an upstream is chosen among those fit to be tried in the lowest priority tier: `weighted` at random by weight; `least-in-flight` the fewest calls in flight per unit of weight; `latency` the lowest recent time to first token (streams) or time per output token (JSON), × calls in flight, ÷ weight, measured per instance, with unmeasured upstreams probed one call at a time; `cost` the cheapest for the call's estimated tokens (catalogue price × regional surcharge × `upstreams[].priceMultiplier`), ties and unpriced models by weight. See docs/routing-and-failover.md.",
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
  'groups[].cache':
    'Answer a repeated request from the response cache ([Response cache](response-cache.md)): the same group, model, protocol, body (less `stream`, `stream_options`, `user` and other fields that cannot change the answer) and scope. Off when absent.',
  'groups[].cache.ttlSeconds': {
    text: 'How long an entry is served, in seconds (at most 30 days). With `state.redis` Redis keeps the TTL.',
  },
  'groups[].cache.scope': {
    text: 'Whose entry it is: `key`, the key that caused it; `team`, every key of its team (a key with no team keeps its own); `organisation`, every key.',
    default: 'key',
  },
  'groups[].cache.toolCalls': {
    text: 'Cache answers that call tools too (by default they go upstream each time: a tool call usually acts on the world).',
    default: false,
  },
  'groups[].cache.maxEntryBytes': {
    text: 'The largest answer kept, in bytes of its stored form; a larger one is answered and not kept.',
    default: 1_048_576,
  },
  'groups[].circuitBreaker':
    'When an upstream of the group rests after failures, and for how long: an upstream that answered failures (429, 5xx, 529, an unusable answer) rests for that upstream model alone; one that could not be reached rests whole. `false` turns circuit breaking off.',
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
  'groups[].circuitBreaker.whenAllResting': {
    text: "When every candidate of a request (the group's upstreams for the model, then its fallbacks') rests: `try-soonest` sends it to the one whose rest ends first, and the client gets that upstream's own answer; `refuse` answers at once with 503 (529 on Anthropic routes) and `retry-after`.",
    default: 'try-soonest',
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
}
