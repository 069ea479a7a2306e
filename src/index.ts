/**
 * model-gateway: an embeddable LLM gateway. `createGateway(config)` returns one WHATWG
 * `(Request) => Response` handler that runs on Node, Bun, Deno and Cloudflare Workers.
 *
 * This entry holds what a user needs to mount the gateway and plug in their own store: the
 * gateway and its config, its errors, and each plug-in interface with the types its methods take
 * and return and its built-in in-memory implementation. The parts those implementations are built
 * from (limit names and states, selection policies, prices, model profiles) are in
 * `model-gateway/extend`; docs/public-api.md lists both, and test/public-api/root-exports.test.ts pins this list.
 *
 * @module
 */

// The gateway
export { createGateway } from './gateway'
export type { GatewayContext, GatewayFetch, GatewayHandler } from './gateway'
export type { GatewayCloseOptions } from './gateway-lifecycle'

// Config
export type { GatewayConfig } from './config/schema'
export { defaultForwardHeaders } from './config/schema'
export { GatewayConfigError } from './config/parse-config'
export type { ConfigIssue } from './config/parse-config'

// Errors
export { GatewayError, isGatewayError } from './errors'
export type { GatewayErrorCode, GatewayErrorOptions, UpstreamErrorDetail } from './errors'

// Key store (plug-in interface)
export type { KeyLimits, KeyRecord, KeyStore, MoneyBudget } from './auth/key-store'
export { createMemoryKeyStore } from './auth/memory-key-store'
export type { HashedKey, MemoryKeyStoreOptions } from './auth/memory-key-store'
// Teams of keys, the organisation and end users (issue 33): `teamStore` is a plug-in like `keyStore`.
export { createMemoryTeamStore } from './auth/team'
export type { Organisation, PerUserLimits, Team, TeamStore } from './auth/team'
export { createCompositeKeyStore } from './auth/composite-key-store'
export { hashKey } from './auth/hash-key'
export type { KeyHasher } from './auth/hash-key'

// Group registry (plug-in interface)
export type { Group, GroupRegistry, ModelEntry } from './routing/group-registry'
export { createStaticGroupRegistry } from './routing/static-group-registry'

// Upstream provider and upstream kinds (plug-in interfaces)
export type { ProtocolName } from './protocols/protocol-name'
export type {
  UpstreamCall,
  UpstreamOperation,
  UpstreamProvider,
  UpstreamStreamAnswer,
} from './upstream/provider'
export { upstreamSpecificationVersion } from './upstream/provider'
export { createHttpProvider } from './upstream/http-provider'
export type { HttpProviderOptions } from './upstream/http-provider'
export { createMockProvider } from './upstream/mock/mock-provider'
export type { MockProviderOptions } from './upstream/mock/mock-provider'
export { defineUpstreamKind } from './upstream/kind'
export type {
  UpstreamKind,
  UpstreamKindContext,
  UpstreamKindIssue,
  UpstreamKindSchema,
} from './upstream/kind'
export type { PreparedRequest, PrepareHook, SignHook } from './upstream/prepared-request'
export type { HttpWire } from './upstream/http-wire'
export type { ChunkSource } from './sse/chunk-source'

// Usage meter (plug-in interface)
export type {
  KeyUsageSummary,
  Reservation,
  ReserveRequest,
  ReserveResult,
  SettleResult,
  UsageMeter,
  UsageRecord,
} from './usage/usage-meter'
export type { KeyLimitSettings } from './usage/key-limits'
export { createMemoryUsageMeter } from './usage/memory-usage-meter'
export type { MemoryUsageMeter, MemoryUsageMeterOptions } from './usage/memory-usage-meter'

// Usage ledger and reports (plug-in interfaces)
export type { DailyUsage, UsageLedger } from './usage/usage-ledger'
export type { UsageQuery, UsageReport, UsageReports, UsageTotals } from './usage/usage-report'
export { createMemoryUsageLedger } from './usage/memory-usage-ledger'
export type { MemoryUsageLedger, MemoryUsageLedgerOptions } from './usage/memory-usage-ledger'

// Response store (plug-in interface)
export type { ResponseStore, StoredJson, StoredResponse } from './response-store/response-store'
export { createMemoryResponseStore } from './response-store/memory-response-store'
export type { MemoryResponseStoreOptions } from './response-store/memory-response-store'
export type { ResponseCacheStore, MemoryResponseCacheOptions } from './cache/cache-store'
export { createMemoryResponseCache } from './cache/cache-store'

// Upstream selector and circuit store (plug-in interfaces); `gateway.health()`'s answer
export type {
  AttemptVerdict,
  SelectContext,
  Selection,
  Unavailable,
  UpstreamHealth,
  UpstreamSelector,
} from './failover/upstream-selector'
export { createHealthSelector } from './failover/health-selector'
export type { HealthSelectorOptions } from './failover/health-selector'
export type { CircuitStore } from './failover/circuit-store'
export { createMemoryCircuitStore } from './failover/circuit-store'

// Events, telemetry, metrics and probes
export type { RequestEvent } from './observability/request-event'
export type { BudgetAlert } from './usage/budget-alert'
export type { TelemetryOption } from './observability/telemetry-option'
export { genAiConventionsVersion } from './observability/gen-ai-conventions'
export { createPrometheusMetrics } from './observability/prometheus/prometheus-metrics'
export type {
  PrometheusMetrics,
  PrometheusMetricsOptions,
} from './observability/prometheus/prometheus-metrics'
export { createMetricsRoute } from './observability/prometheus/metrics-route'
export { createProbes } from './observability/probes'
export type { ProbesOptions, RouteHandler } from './observability/probes'

// Call interceptors (plug-in interface)
export type { CallInterceptor, InterceptedCall, SettledCall } from './intercept/call-interceptor'
export { jsonTextAnswer, sseAnswer } from './intercept/interceptor-answers'
export type { AnswerHeaders, AnswerStream, GatewayAnswer } from './http/gateway-answer'

// Metered subjects: what a reservation charges besides tokens and money (the key; a team, the
// organisation, an end user), for `UsageMeter` implementations and their callers.
export type {
  MeteredSubject,
  MeteredSubjectKind,
  MeteredSubjectRef,
  SubjectLimits,
} from './usage/usage-meter'
