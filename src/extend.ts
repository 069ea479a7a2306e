/**
 * model-gateway/extend: the parts the plug-ins of `model-gateway` are built from, for code that
 * writes its own meter, selector or price source, or reads a usage record field by field: the
 * limit names and states a meter reports, token counts and upstream attempts; the weighted
 * selector and the selection policies (retries, circuits, balancing, key pools, session
 * affinity); the price catalogue and costs; model profiles and the adjustments translation makes.
 *
 * A user who mounts the gateway and plugs in a store needs none of it: the root entry has the
 * gateway, its config, its errors and every plug-in interface with its in-memory implementation.
 * docs/public-api.md lists both entries.
 *
 * @module
 */

// Usage metering: limits, budgets, token counts and upstream attempts
export type {
  BudgetLimitName,
  BudgetPeriodKind,
  LimitName,
  MoneyLimitName,
  WindowLimitName,
} from './usage/key-limits'
export type {
  BudgetCrossing,
  LimitRefusal,
  LimitState,
  TokenEstimate,
  TokenUsage,
  UsageOutcome,
} from './usage/usage-meter'
export type { BudgetMeasure, ReseedFunction } from './usage/budget-seeds'
export type { AttemptPhase, AttemptVerdictKind, UpstreamAttempt } from './usage/upstream-attempt'

// Upstream selection: another selector, and the policies a group's upstreams are chosen by
export type { SelectorLogger } from './failover/health-selector'
export { createWeightedSelector } from './failover/weighted-selector'
export type { WeightedSelectorOptions } from './failover/weighted-selector'
export { defaultRetryPolicy } from './failover/retry-policy'
export type { RetryBudgetSettings, RetryPolicy, RetrySettings } from './failover/retry-policy'
export { defaultCircuitPolicy } from './failover/circuit-policy'
export type { CircuitPolicy } from './failover/circuit-policy'
export type { Balancing } from './failover/balancing'
export type { KeyPoolPolicy, KeyRotation } from './failover/key-pool'
export { sessionHintOf } from './failover/session-hint'
export type { SessionAffinity } from './failover/session-hint'
export type { RequestHeaders } from './http/gateway-request'

// Prices and costs
export type {
  CatalogueRow,
  ModelPrice,
  PriceOverride,
  PriceSource,
  PriceTier,
} from './pricing/model-price'
export { builtInPriceRows, createPriceCatalogue } from './pricing/price-catalogue'
export type { PriceCatalogue, PriceCatalogueOptions } from './pricing/price-catalogue'
export { memoisedSurcharge } from './pricing/price-surcharge'
export type { PriceSurcharge } from './pricing/price-surcharge'
export type { CategoryRates, ResolvedPrice } from './pricing/resolved-price'
export { usageCost } from './pricing/usage-cost'
export type { ChargedPrice, UsageCost } from './pricing/usage-cost'

// Model profiles and what translation adjusts
export type {
  EmbeddingProfile,
  ModelProfile,
  ModelProfileOverrides,
  ReasoningControl,
  ReasoningEffort,
  ReasoningField,
  StructuredOutputSupport,
  ThinkingLevel,
} from './models/profile'
export type { Adjustment } from './models/model-target'

// Keys, telemetry and probes
export { maskKey } from './auth/mask-key'
export type {
  TelemetryMeterProvider,
  TelemetryTracerProvider,
} from './observability/telemetry-option'
export type { HealthSource } from './observability/prometheus/prometheus-metrics'
export type { ProbeCheck } from './observability/probes'

// Helpers the plug-in interfaces' signatures use
export type { MaybePromise } from './internal/maybe-promise'

// Short-lived cloud credentials: the cache every cloud upstream kind shares, and renewal
export {
  createCredentialCache,
  defaultRefreshMarginMs,
} from './upstream/credentials/credential-cache'
export type {
  CredentialCache,
  CredentialCacheOptions,
  CredentialSource,
  ExpiringCredential,
} from './upstream/credentials/credential-cache'
export type {
  AwsCredentials,
  CloudCredentialChains,
} from './upstream/credentials/cloud-credentials'
export type { CredentialRenewal } from './upstream/prepared-request'
// An entry problem a kind finds only when it builds the upstream: reported as a config error
export { UpstreamEntryError } from './upstream/entry-error'
