/**
 * model-gateway: an embeddable LLM gateway. `createGateway(config)` returns one WHATWG
 * `(Request) => Response` handler that runs on Node, Bun, Deno and Cloudflare Workers.
 *
 * @module
 */
export { createGateway } from './gateway'
export type { GatewayContext, GatewayFetch, GatewayHandler } from './gateway'
export type { GatewayCloseOptions } from './gateway-lifecycle'
export { GatewayConfigError } from './config/parse-config'
export type { ConfigIssue } from './config/parse-config'
export { defaultForwardHeaders } from './config/schema'
export type { GatewayConfig } from './config/schema'
export { GatewayError, isGatewayError } from './errors'
export type { GatewayErrorCode, GatewayErrorOptions, UpstreamErrorDetail } from './errors'
export type { KeyLimits, KeyRecord, KeyStore, MoneyBudget } from './auth/key-store'
export { createMemoryKeyStore } from './auth/memory-key-store'
export type { MemoryKeyStoreOptions } from './auth/memory-key-store'
export { createCompositeKeyStore } from './auth/composite-key-store'
export type { HashedKey } from './auth/memory-key-store'
export { hashKey } from './auth/hash-key'
export type { KeyHasher } from './auth/hash-key'
export { maskKey } from './auth/mask-key'
export type { Group, GroupRegistry, ModelEntry } from './routing/group-registry'
export { createStaticGroupRegistry } from './routing/static-group-registry'
export type {
  KeyLimitSettings,
  BudgetLimitName,
  BudgetPeriodKind,
  LimitName,
  MoneyLimitName,
  WindowLimitName,
} from './usage/key-limits'
export type {
  BudgetCrossing,
  KeyUsageSummary,
  LimitRefusal,
  LimitState,
  TokenEstimate,
  Reservation,
  ReserveRequest,
  ReserveResult,
  SettleResult,
  TokenUsage,
  UsageMeter,
  UsageOutcome,
  UsageRecord,
} from './usage/usage-meter'
export type { DailyUsage, UsageLedger } from './usage/usage-ledger'
export type { UsageQuery, UsageReport, UsageReports, UsageTotals } from './usage/usage-report'
export { createMemoryUsageLedger } from './usage/memory-usage-ledger'
export type { MemoryUsageLedger, MemoryUsageLedgerOptions } from './usage/memory-usage-ledger'
export { createMemoryUsageMeter } from './usage/memory-usage-meter'
export type { MemoryUsageMeter, MemoryUsageMeterOptions } from './usage/memory-usage-meter'
export type { BudgetMeasure, ReseedFunction } from './usage/budget-seeds'
export type { BudgetAlert } from './usage/budget-alert'
export type {
  CatalogueRow,
  ModelPrice,
  PriceOverride,
  PriceSource,
  PriceTier,
} from './pricing/model-price'
export type { ChargedPrice, UsageCost } from './pricing/usage-cost'
export { builtInPriceRows, createPriceCatalogue } from './pricing/price-catalogue'
export type { PriceCatalogue, PriceCatalogueOptions } from './pricing/price-catalogue'
export type { ResolvedPrice } from './pricing/resolved-price'
export { usageCost } from './pricing/usage-cost'
export type { ResponseStore, StoredJson, StoredResponse } from './response-store/response-store'
export { createMemoryResponseStore } from './response-store/memory-response-store'
export type { MemoryResponseStoreOptions } from './response-store/memory-response-store'
export type { RequestEvent } from './observability/request-event'
export type {
  TelemetryMeterProvider,
  TelemetryOption,
  TelemetryTracerProvider,
} from './observability/telemetry-option'
export { createPrometheusMetrics } from './observability/prometheus/prometheus-metrics'
export type {
  HealthSource,
  PrometheusMetrics,
  PrometheusMetricsOptions,
} from './observability/prometheus/prometheus-metrics'
export { createMetricsRoute } from './observability/prometheus/metrics-route'
export { createProbes } from './observability/probes'
export type { ProbeCheck, ProbesOptions, RouteHandler } from './observability/probes'
export { genAiConventionsVersion } from './observability/gen-ai-conventions'
export type {
  AttemptVerdict,
  SelectContext,
  Selection,
  Unavailable,
  UpstreamHealth,
  UpstreamSelector,
} from './failover/upstream-selector'
export { createWeightedSelector } from './failover/weighted-selector'
export { defaultRetryPolicy } from './failover/retry-policy'
export type { RetryBudgetSettings, RetryPolicy, RetrySettings } from './failover/retry-policy'
export type { AttemptPhase, UpstreamAttempt } from './usage/upstream-attempt'
export type { WeightedSelectorOptions } from './failover/weighted-selector'
export { createHealthSelector } from './failover/health-selector'
export type { HealthSelectorOptions, SelectorLogger } from './failover/health-selector'
export { createMemoryCircuitStore } from './failover/circuit-store'
export type { CircuitStore } from './failover/circuit-store'
export { defaultCircuitPolicy } from './failover/circuit-policy'
export type { CircuitPolicy } from './failover/circuit-policy'
export type { Balancing } from './failover/balancing'
export type { KeyPoolPolicy, KeyRotation } from './failover/key-pool'
export { sessionHintOf } from './failover/session-hint'
export type { SessionAffinity } from './failover/session-hint'
export type { ProtocolName } from './protocols/protocol-name'
export type {
  ModelProfile,
  ModelProfileOverrides,
  ReasoningControl,
  ReasoningEffort,
  StructuredOutputSupport,
  ThinkingLevel,
} from './models/profile'
export type { Adjustment } from './models/model-target'

// Upstream kinds (plug-in interface)
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
