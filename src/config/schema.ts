import { z } from 'zod'
import type { KeyHasher } from '../auth/hash-key'
import type { KeyStore } from '../auth/key-store'
import { credentialHeaders } from '../auth/credentials'
import { requestIdHeaders } from '../upstream/upstream-headers'
import type { GroupRegistry } from '../routing/group-registry'
import type { UpstreamProvider } from '../upstream/provider'
import type { UsageLedger } from '../usage/usage-ledger'
import type { UsageMeter } from '../usage/usage-meter'
import type { ResponseStore } from '../response-store/response-store'
import type { UpstreamSelector } from '../failover/upstream-selector'
import type { RequestEvent } from '../observability/request-event'
import { modelProfileOverridesSchema } from '../models/profile-schema'

const hasFunction = (value: unknown, name: string): boolean =>
  typeof value === 'object' &&
  value !== null &&
  // lookup-safe: plug-in objects may be class instances, whose methods are inherited
  typeof (value as Record<string, unknown>)[name] === 'function'

const groupId = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
    'group ids start with a letter or digit and use only letters, digits, ".", "_" and "-"',
  )

const modelName = z.string().min(1, 'expected a non-empty model name')
const modelObject = z.strictObject({
  name: modelName,
  upstreamModel: modelName.optional(),
  profile: modelProfileOverridesSchema.optional(),
})

/**
 * A model entry: a call name, or `{name, upstreamModel?, profile?}`. Checked against the one
 * schema its shape calls for, so that an error names the field (`models[1].profile.reasoning.min`)
 * instead of zod's "no union member matched".
 */
const modelEntry = z
  .custom<string | z.input<typeof modelObject>>(() => true)
  .transform((value, context) => {
    if (typeof value !== 'string' && (typeof value !== 'object' || value === null)) {
      context.addIssue({
        code: 'custom',
        message: 'expected a call name or {"name", "upstreamModel"?, "profile"?}',
      })
      return z.NEVER
    }
    const result = (typeof value === 'string' ? modelName : modelObject).safeParse(value)
    if (result.success) return result.data
    for (const issue of result.error.issues) {
      context.addIssue({ code: 'custom', message: issue.message, path: issue.path })
    }
    return z.NEVER
  })

const mockUpstream = z.strictObject({
  provider: z.literal('mock'),
  id: z.string().min(1).optional(),
  weight: z.number().positive().optional(),
  reply: z.string().optional(),
  chunkDelayMs: z.number().int().nonnegative().optional(),
  responses: z.boolean().optional(),
})

const httpUpstream = z.strictObject({
  id: z.string().min(1).optional(),
  baseUrl: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }),
  apiKey: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  weight: z.number().positive().optional(),
  /** An OpenAI upstream that serves `/v1/responses` (api.openai.com, Azure): called there. */
  responses: z.boolean().optional(),
})

const customUpstream = z.custom<UpstreamProvider>(
  (value) => hasFunction(value, 'send'),
  'expected an UpstreamProvider object',
)

/** An upstream entry as written: the mock, an HTTP upstream, or a provider object passed in code. */
type UpstreamInput = z.input<typeof mockUpstream> | z.input<typeof httpUpstream> | UpstreamProvider

/**
 * An upstream entry, checked against the one schema its shape calls for, so that an error names
 * the real problem instead of zod's "no union member matched".
 */
const upstream = z
  .custom<UpstreamInput>(() => true)
  .transform((value, context) => {
    const schema =
      typeof value === 'object' && value !== null && 'provider' in value
        ? mockUpstream
        : hasFunction(value, 'send')
          ? customUpstream
          : httpUpstream
    const result = schema.safeParse(value)
    if (result.success) return result.data
    for (const issue of result.error.issues) {
      context.addIssue({ code: 'custom', message: issue.message, path: issue.path })
    }
    return z.NEVER
  })

const group = z.strictObject({
  id: groupId,
  protocol: z.enum(['openai', 'anthropic', 'gemini'], {
    error: 'expected "openai", "anthropic" or "gemini"',
  }),
  models: z.array(modelEntry).min(1, 'a group serves at least one model'),
  upstreams: z.array(upstream).min(1, 'a group needs at least one upstream'),
})

const perMinute = z.number().int().positive().optional()
const budget = z.number().int().nonnegative().optional()

/** A key's limits (`KeyLimits`): windows of at least 1, budgets of 0 or more (0 refuses all). */
export const keyLimits = z.strictObject({
  requestsPerMinute: perMinute,
  inputTokensPerMinute: perMinute,
  outputTokensPerMinute: perMinute,
  concurrency: perMinute,
  tokensPerDay: budget,
  tokensPerMonth: budget,
})

const keyEntry = z
  .strictObject({
    key: z
      .string()
      .startsWith('sk-', 'keys start with "sk-"')
      .min(20, 'keys are at least 20 characters long')
      .optional(),
    keyHash: z
      .string()
      .regex(/^sha256:[0-9a-fA-F]{64}$/, 'expected "sha256:" and 64 hex digits')
      .optional(),
    id: z.string().min(1).optional(),
    name: z.string().min(1).optional(),
    groups: z.array(z.string().min(1)).optional(),
    quota: z.strictObject({ tokens: z.number().int().nonnegative().optional() }).optional(),
    limits: keyLimits.optional(),
    disabled: z.boolean().optional(),
    expiresAt: z.iso.datetime({ offset: true }).optional(),
  })
  .refine((entry) => (entry.key === undefined) !== (entry.keyHash === undefined), {
    message: 'give exactly one of "key" or "keyHash"',
  })

const milliseconds = z.number().int().nonnegative()

/**
 * Shared state: where keys, usage and limits live when several instances (or restarts) must
 * agree. The core only validates it; `createGatewayWithState` from `model-gateway/node` connects
 * the URLs (the core imports no driver).
 */
export const stateConfigSchema = z.strictObject({
  /** Redis URL: the usage meter is shared. */
  redis: z
    .string()
    .regex(/^rediss?:\/\/\S+$/, 'expected a redis:// or rediss:// URL')
    .optional(),
  /** PostgreSQL URL: keys and the usage ledger persist. */
  postgres: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL')
    .optional(),
  /** Namespace of Redis keys and Postgres tables (default "mg"). */
  prefix: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,23}$/, 'use 1 to 24 lowercase letters, digits and "_"')
    .optional(),
  /** Postgres schema of the tables (default: the connection's search_path). */
  schema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,29}$/, 'use up to 30 lowercase letters, digits and "_"')
    .optional(),
  /** How long Postgres key lookups are cached, found and not found (default 5000 ms each). */
  keyCache: z
    .strictObject({ ttlMs: milliseconds.optional(), negativeTtlMs: milliseconds.optional() })
    .optional(),
  /** Batching of the Postgres usage ledger. */
  ledger: z
    .strictObject({
      flushIntervalMs: z.number().int().positive().optional(),
      batchSize: z.number().int().positive().optional(),
      maxQueue: z.number().int().positive().optional(),
      drainTimeoutMs: milliseconds.optional(),
    })
    .optional(),
  /** Longest a Redis call may take before the failure policy applies (default 200 ms). */
  redisTimeoutMs: z.number().int().positive().max(60_000).optional(),
  /** Lease of a reservation in the shared meter, renewed every third (default 60000 ms). */
  leaseMs: z.number().int().min(1000).optional(),
  /** What the shared meter does while Redis does not answer. */
  onFailure: z
    .strictObject({
      budgets: z.enum(['closed', 'open']).optional(),
      windows: z.enum(['local', 'closed']).optional(),
      expectedInstances: z.number().int().positive().optional(),
    })
    .optional(),
})

const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'expected an HTTP header name')
  .transform((name) => name.toLowerCase())
  .refine((name) => !credentialHeaders.has(name), 'credential headers are never forwarded')
  .refine(
    (name) => !requestIdHeaders.includes(name),
    'the gateway sends its own request id in this header',
  )

const plugin = <T>(method: string, what: string) =>
  z.custom<T>((value) => hasFunction(value, method), `expected a ${what} object`)
const fn = <T>(what: string) =>
  z.custom<T>((value) => typeof value === 'function', `expected ${what} function`)

/** Default upstream request headers copied from the client: tracing, and nothing that identifies the client. */
export const defaultForwardHeaders = ['traceparent', 'tracestate', 'baggage'] as const

/** The zod schema of `createGateway`'s config, checked once at creation. */
export const gatewayConfigSchema = z
  .strictObject({
    groupIdRouting: z.boolean().default(false),
    basePath: z
      .string()
      .regex(/^\/[^?#]*[^/?#]$/, 'expected a path such as "/llm", without a trailing slash')
      .optional(),
    maxBodyBytes: z
      .number()
      .int()
      .positive()
      .default(32 * 1024 * 1024),
    maxResponseBytes: z
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024),
    upstreamTimeoutMs: z.number().int().positive().default(600_000),
    defaultOutputTokens: z.number().int().positive().default(4096),
    streamIdleTimeoutMs: z.number().int().positive().default(300_000),
    maxStreamMs: z.number().int().positive().optional(),
    maxInFlight: z.number().int().positive().optional(),
    forwardHeaders: z.array(headerName).default([...defaultForwardHeaders]),
    groups: z.array(group).optional(),
    groupRegistry: plugin<GroupRegistry>('servingModel', 'GroupRegistry').optional(),
    keys: z.array(keyEntry).optional(),
    keyStore: plugin<KeyStore>('lookup', 'KeyStore').optional(),
    usageMeter: plugin<UsageMeter>('reserve', 'UsageMeter').optional(),
    usageLedger: plugin<UsageLedger>('record', 'UsageLedger').optional(),
    state: stateConfigSchema.optional(),
    responseStore: plugin<ResponseStore>('items', 'ResponseStore').optional(),
    /** Chooses the upstream of each attempt and keeps their health (default: weighted random). */
    upstreamSelector: plugin<UpstreamSelector>('select', 'UpstreamSelector').optional(),
    // Workers pass their `env` whole: KV, D1 and service bindings sit beside the string variables.
    env: z.record(z.string(), z.unknown()).optional(),
    fetch: fn<typeof fetch>('a fetch').optional(),
    hashKey: fn<KeyHasher>('a key hash').optional(),
    generateId: fn<() => string>('an id').optional(),
    now: fn<() => number>('a clock').optional(),
    random: fn<() => number>('a random').optional(),
    onEvent: fn<(event: RequestEvent) => void>('an event').optional(),
  })
  .superRefine((config, context) => {
    const issue = (path: (string | number)[], message: string) =>
      context.addIssue({ code: 'custom', path, message })
    if ((config.groups === undefined) === (config.groupRegistry === undefined)) {
      issue(['groups'], 'give exactly one of "groups" or "groupRegistry"')
    }
    if (config.keys === undefined && config.keyStore === undefined) {
      issue(['keys'], 'give "keys", a "keyStore", or both')
    }
    if (
      config.state?.postgres !== undefined &&
      (config.keyStore === undefined || config.usageLedger === undefined)
    ) {
      issue(
        ['state', 'postgres'],
        'the core cannot open database connections: use createGatewayWithState() from "model-gateway/node", or pass keyStore and usageLedger from "model-gateway/postgres"',
      )
    }
    if (config.state?.redis !== undefined && config.usageMeter === undefined) {
      issue(
        ['state', 'redis'],
        'the core opens no connections: use createGatewayWithState() from "model-gateway/node" (the CLI does), or pass usageMeter: createRedisUsageMeter({ client }) from "model-gateway/redis"',
      )
    }
    const groupIds = new Set<string>()
    config.groups?.forEach((entry, index) => {
      if (groupIds.has(entry.id)) issue(['groups', index, 'id'], `duplicate group id "${entry.id}"`)
      groupIds.add(entry.id)
      entry.upstreams.forEach((upstream, upstreamIndex) => {
        if (entry.protocol !== 'openai' && 'responses' in upstream && upstream.responses === true)
          issue(
            ['groups', index, 'upstreams', upstreamIndex, 'responses'],
            'only an upstream of an "openai" group can serve the Responses API',
          )
      })
      const names = new Set<string>()
      entry.models.forEach((model, modelIndex) => {
        const name = typeof model === 'string' ? model : model.name
        if (names.has(name))
          issue(['groups', index, 'models', modelIndex], `duplicate model "${name}"`)
        names.add(name)
      })
    })
    const secrets = new Set<string>()
    const ids = new Set<string>()
    config.keys?.forEach((entry, index) => {
      const secret = entry.key ?? entry.keyHash?.toLowerCase()
      if (secret !== undefined && secrets.has(secret)) issue(['keys', index], 'duplicate key')
      if (secret !== undefined) secrets.add(secret)
      if (entry.id !== undefined && ids.has(entry.id))
        issue(['keys', index, 'id'], `duplicate key id "${entry.id}"`)
      if (entry.id !== undefined) ids.add(entry.id)
      entry.groups?.forEach((name, groupIndex) => {
        if (config.groups !== undefined && !groupIds.has(name)) {
          issue(['keys', index, 'groups', groupIndex], `unknown group "${name}"`)
        }
      })
    })
  })

/** Lets readonly arrays in, so that a config written `as const` type-checks. */
type AcceptReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer Item)[]
    ? readonly AcceptReadonly<Item>[]
    : T extends object
      ? { [Key in keyof T]: AcceptReadonly<T[Key]> }
      : T

/** The config `createGateway` accepts: JSON-serialisable, or with plug-in objects in code. */
export type GatewayConfig = AcceptReadonly<z.input<typeof gatewayConfigSchema>>

/** The config after validation and defaults. */
export type ValidGatewayConfig = z.output<typeof gatewayConfigSchema>

/** The `state` section of a config, after validation. */
export type StateConfig = z.output<typeof stateConfigSchema>
