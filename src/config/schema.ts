import type { CloudCredentialChains } from '../upstream/credentials/cloud-credentials'
import * as z from 'zod/mini'
import type { KeyHasher } from '../auth/hash-key'
import type { TeamStore } from '../auth/team'
import type { KeyStore } from '../auth/key-store'
import { credentialHeaders } from '../auth/credentials'
import { requestIdHeaders } from '../upstream/upstream-headers'
import type { GroupRegistry } from '../routing/group-registry'
import type { UpstreamKind } from '../upstream/kind'
import type { UsageLedger } from '../usage/usage-ledger'
import type { UsageMeter } from '../usage/usage-meter'
import type { ResponseStore } from '../response-store/response-store'
import type { ResponseCacheStore } from '../cache/cache-store'
import type { UpstreamSelector } from '../failover/upstream-selector'
import type { CircuitStore } from '../failover/circuit-store'
import type { RequestEvent } from '../observability/request-event'
import { hasFunction, positiveInt } from './schema-parts'
import { buildGroupSchema } from './group-schema'
import { buildKeyEntrySchema } from './key-schema'
import { buildTeamSchemas } from './team-schema'
import { buildStateConfigSchema } from './state-schema'
import { buildCorsSchema } from './cors-schema'
import { buildConsoleSchema } from './console-schema'
import { crossFieldChecks } from './cross-checks'
import { buildSpendSchemas } from './spend-schema'
import { metricsRouteSchema, probesSchema, telemetrySchema } from './telemetry-schema'
import type { BudgetAlert } from '../usage/budget-alert'
import type { CallInterceptor } from '../intercept/call-interceptor'
import type { McpSessionStore } from '../mcp/session-store'
import type { McpTransportFactory } from '../mcp/upstream-channel'
import { buildMcpSchema } from './mcp-schema'

/** A call interceptor's shape, as far as a config check can see it. */
const isInterceptor = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { name?: unknown }).name === 'string' &&
  (hasFunction(value, 'before') || hasFunction(value, 'settled'))

/** Default upstream request headers copied from the client: tracing, and nothing that identifies the client. */
export const defaultForwardHeaders = ['traceparent', 'tracestate', 'baggage'] as const

/**
 * Builds the config's zod schemas. Called on the first config check, not at import: building
 * them is a third of what importing the core costs, and a module that never checks a config (a
 * Worker that imports the gateway to read its types, a test) should not pay it.
 */
function buildConfigSchemas() {
  const spend = buildSpendSchemas()
  const group = buildGroupSchema(spend)
  const keyEntry = buildKeyEntrySchema(spend)
  const teamSchemas = buildTeamSchemas(spend)
  const stateConfigSchema = buildStateConfigSchema()

  /** A header name, lower-cased: never a credential header, never one the gateway sets itself. */
  const headerName = z.pipe(
    z.string().check(z.regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'expected an HTTP header name')),
    z.transform((name: string, payload) => {
      const lower = name.toLowerCase()
      const problem = credentialHeaders.has(lower)
        ? 'credential headers are never forwarded'
        : requestIdHeaders.includes(lower)
          ? 'the gateway sends its own request id in this header'
          : undefined
      if (problem !== undefined)
        // `continue`: like a refinement, the problem does not stop the checks of the rest
        payload.issues.push({ code: 'custom', message: problem, input: name, continue: true })
      return lower
    }),
  )

  const plugin = <T>(method: string, what: string) =>
    z.custom<T>((value) => hasFunction(value, method), `expected a ${what} object`)
  const fn = <T>(what: string) =>
    z.custom<T>((value) => typeof value === 'function', `expected ${what} function`)

  /** The zod schema of `createGateway`'s config, checked once at creation. */
  const gatewayConfigSchema = z
    .strictObject({
      /** A JSON config file's pointer to its JSON Schema (`config.schema.json`), for editors. */
      $schema: z.optional(z.string()),
      groupIdRouting: z._default(z.boolean(), false),
      basePath: z.optional(
        z
          .string()
          .check(
            z.regex(/^\/[^?#]*[^/?#]$/, 'expected a path such as "/llm", without a trailing slash'),
          ),
      ),
      maxBodyBytes: z._default(positiveInt(), 32 * 1024 * 1024),
      maxResponseBytes: z._default(positiveInt(), 64 * 1024 * 1024),
      upstreamTimeoutMs: z._default(positiveInt(), 600_000),
      defaultOutputTokens: z._default(positiveInt(), 4096),
      streamIdleTimeoutMs: z._default(positiveInt(), 300_000),
      maxStreamMs: z.optional(positiveInt()),
      maxInFlight: z.optional(positiveInt()),
      forwardHeaders: z._default(z.array(headerName), () => [...defaultForwardHeaders]),
      /** The MCP gateway: one endpoint in front of the organisation's tool servers. */
      mcp: z.optional(buildMcpSchema()),
      /** Where MCP sessions are kept (default: memory; `state.redis` gives the Redis one). */
      mcpSessionStore: z.optional(plugin<McpSessionStore>('setUpstream', 'McpSessionStore')),
      /** The transports of `command` (stdio) servers: the Node entry fills it. */
      mcpTransports: z.optional(plugin<McpTransportFactory>('create', 'McpTransportFactory')),
      /** Browser apps: which origins may call the gateway (off when absent). */
      cors: z.optional(buildCorsSchema()),
      /** The web console (`model-gateway/console`): validated here, served by `createConsole`. */
      console: z.optional(buildConsoleSchema()),
      /** The Prometheus endpoint the CLI serves: validated here, served by the CLI. */
      metrics: z.optional(metricsRouteSchema()),
      /** Liveness and readiness routes the CLI serves: validated here, served by the CLI. */
      probes: z.optional(probesSchema()),
      groups: z.optional(z.array(group)),
      groupRegistry: z.optional(plugin<GroupRegistry>('servingModel', 'GroupRegistry')),
      /** Upstream kinds of the application's, named by entries' `provider` (`kind-checks.ts`). */
      upstreamKinds: z.optional(
        z.custom<readonly UpstreamKind[]>(
          (value) => Array.isArray(value),
          'expected an array of UpstreamKind objects',
        ) as z.ZodMiniType<readonly UpstreamKind[], readonly UpstreamKind<any>[]>,
      ),
      keys: z.optional(z.array(keyEntry)),
      keyStore: z.optional(plugin<KeyStore>('lookup', 'KeyStore')),
      /** Teams of keys: limits and budgets shared by their keys, and the groups they may use. */
      teams: z.optional(z.array(teamSchemas.team)),
      /** Where teams the config does not list are looked up (a database's). */
      teamStore: z.optional(plugin<TeamStore>('lookup', 'TeamStore')),
      /** The organisation above every team and key: its money budget. */
      organisation: z.optional(teamSchemas.organisation),
      /** Prices by upstream-model pattern, over the built-in catalogue; `false`: unpriced. */
      prices: z.optional(spend.prices),
      /** `false` starts the catalogue empty: only `prices` and `models[].price` price models. */
      builtInPrices: z._default(z.boolean(), true),
      /** What a key with a money budget gets on a model without a price (default `refuse`). */
      unpricedModels: z._default(
        z.enum(['refuse', 'allow'], { error: 'expected "refuse" or "allow"' }),
        'refuse',
      ),
      usageMeter: z.optional(plugin<UsageMeter>('reserve', 'UsageMeter')),
      usageLedger: z.optional(plugin<UsageLedger>('record', 'UsageLedger')),
      state: z.optional(stateConfigSchema),
      responseStore: z.optional(plugin<ResponseStore>('items', 'ResponseStore')),
      /** Where groups with `cache` keep answers (default: this process's bounded memory). */
      responseCache: z.optional(plugin<ResponseCacheStore>('get', 'ResponseCacheStore')),
      /** Chooses the upstream of each attempt and keeps their health (default: weighted random). */
      upstreamSelector: z.optional(plugin<UpstreamSelector>('select', 'UpstreamSelector')),
      /** Where the default selector shares open circuits with other gateways (default: nowhere). */
      circuitStore: z.optional(plugin<CircuitStore>('openUntil', 'CircuitStore')),
      // Workers pass their `env` whole: KV, D1 and service bindings sit beside the string variables.
      env: z.optional(z.record(z.string(), z.unknown())),
      fetch: z.optional(fn<typeof fetch>('a fetch')),
      /** The runtime's cloud credential chains (`nodeCloudCredentials()` on Node). */
      cloudCredentials: z.optional(
        z.custom<CloudCredentialChains>(
          (value) =>
            typeof value === 'object' &&
            value !== null &&
            Object.values(value).every(
              (chain) => chain === undefined || typeof chain === 'function',
            ),
          'expected an object of credential chain functions ({ aws?, google?, azure? })',
        ),
      ),
      hashKey: z.optional(fn<KeyHasher>('a key hash')),
      generateId: z.optional(fn<() => string>('an id')),
      now: z.optional(fn<() => number>('a clock')),
      random: z.optional(fn<() => number>('a random')),
      onEvent: z.optional(fn<(event: RequestEvent) => void>('an event')),
      /** Code around every upstream call, in order: it may answer first, and sees each answer. */
      interceptors: z.optional(
        z.custom<readonly CallInterceptor[]>(
          (value) => Array.isArray(value) && value.every(isInterceptor),
          'expected an array of CallInterceptor objects, each with a name and a before or settled function',
        ),
      ),
      /** OpenTelemetry spans and metrics (`@opentelemetry/api`, loaded only when set). */
      telemetry: z.optional(telemetrySchema()),
      /** Called once per period when a key's spend crosses a budget's `alertAt`. */
      onBudgetAlert: z.optional(fn<(alert: BudgetAlert) => void>('a budget alert')),
    })
    .check(crossFieldChecks())

  return { gatewayConfigSchema, stateConfigSchema }
}

type ConfigSchemas = ReturnType<typeof buildConfigSchemas>
let built: ConfigSchemas | undefined

/** The zod schemas of `createGateway`'s config and of its `state` section, built once. */
export function configSchemas(): ConfigSchemas {
  return (built ??= buildConfigSchemas())
}

/** Lets readonly arrays in, so that a config written `as const` type-checks. */
type AcceptReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer Item)[]
    ? readonly AcceptReadonly<Item>[]
    : T extends object
      ? { [Key in keyof T]: AcceptReadonly<T[Key]> }
      : T

/** The config `createGateway` accepts: JSON-serialisable, or with plug-in objects in code. */
export type GatewayConfig = AcceptReadonly<z.input<ConfigSchemas['gatewayConfigSchema']>>

/** The config after validation and defaults. */
export type ValidGatewayConfig = z.output<ConfigSchemas['gatewayConfigSchema']>

/** The `console` section of a config, after validation. */
export type ConsoleConfig = NonNullable<ValidGatewayConfig['console']>

/** The `state` section of a config, after validation. */
export type StateConfig = z.output<ConfigSchemas['stateConfigSchema']>
