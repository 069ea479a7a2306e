import type { KeyRecord, KeyStore } from './auth/key-store'
import type { Organisation, Team, TeamStore } from './auth/team'
import type { UpstreamSelector } from './failover/upstream-selector'
import type { RetryBudget } from './failover/retry-budget'
import type { RetryPolicy } from './failover/retry-policy'
import type { GatewayRequest } from './http/gateway-request'
import type { RequestEvent, RequestEventDraft } from './observability/request-event'
import type { RequestTrace } from './observability/telemetry-hooks'
import type { ResponseStore } from './response-store/response-store'
import type { GroupRegistry } from './routing/group-registry'
import type { UsageLedger } from './usage/usage-ledger'
import type { UpstreamProvider } from './upstream/provider'
import type { SecretScrubber } from './upstream/secret-scrubber'
import type { UsageMeter, UsageOutcome } from './usage/usage-meter'
import type { PriceCatalogue } from './pricing/price-catalogue'
import type { BudgetAlert } from './usage/budget-alert'
import type { InterceptorChain } from './intercept/interceptor-chain'
import type { ResponseCacheStore } from './cache/cache-store'
import type { CacheStats } from './cache/cache-stats'

/** Everything a request handler needs from the gateway, built once by `createGateway`. */
export type GatewayRuntime = {
  keyStore: () => Promise<KeyStore>
  registry: GroupRegistry
  meter: UsageMeter
  /** Receives every settled request's record, when a ledger is configured. */
  ledger: UsageLedger | undefined
  /** Where Responses created with `store: true` are kept. */
  responseStore: ResponseStore
  /** Where groups with `cache` keep their answers (docs/response-cache.md). */
  responseCache: ResponseCacheStore
  /** This instance's cache hits, misses and savings per group (the console shows them). */
  cacheStats: CacheStats
  /** Chooses the upstream of each attempt and keeps the upstreams' health. */
  selector: UpstreamSelector
  /** The retry budget of a group, made on first use (one per group id, per gateway). */
  retryBudget: (groupId: string, policy: RetryPolicy) => RetryBudget
  groupIdRouting: boolean
  maxBodyBytes: number
  maxResponseBytes: number
  upstreamTimeoutMs: number
  streamIdleTimeoutMs: number
  /** The longest a stream may last, from the upstream call to its end; none when undefined. */
  maxStreamMs: number | undefined
  /** The output limit of a call whose client set none: sent where required, and reserved. */
  defaultOutputTokens: number
  forwardHeaders: readonly string[]
  /** Unix seconds at creation: the `created` of listed models. */
  createdAt: number
  now: () => number
  random: () => number
  generateId: () => string
  emit: (event: RequestEvent) => void
  /** The prices: the built-in catalogue (unless `builtInPrices: false`) under the config's `prices`. */
  prices: PriceCatalogue
  /** What a key with a money budget gets on a model without a price (`unpricedModels`). */
  unpricedModels: 'refuse' | 'allow'
  /** Hands a crossed alert threshold to the config's `onBudgetAlert`; never throws. */
  budgetAlert: (alert: BudgetAlert) => void
  /** Scrubs every configured upstream secret, and the provider's own, from upstream errors. */
  scrubberFor: (provider: UpstreamProvider) => SecretScrubber
  /** The config's call interceptors; `undefined` when it names none, and calls skip the chain. */
  interceptors: InterceptorChain | undefined
  /** The teams keys belong to (`teams[]`, a `teamStore`); `undefined` when there are none. */
  teams?: TeamStore | undefined
  /** The organisation's budgets (`organisation.budget`); `undefined` without one. */
  organisation?: Organisation | undefined
}

/** The state of one request as it moves through the gateway. */
export type RequestScope = {
  request: GatewayRequest
  url: URL
  requestId: string
  startedAt: number
  key: KeyRecord | undefined
  /** The key's team, once the key is known and has one. */
  team?: Team | undefined
  /**
   * The end user the request is made for (`x-gateway-user`, the body's `user` or
   * `metadata.user_id`, or the host app's `endUser`), validated; `undefined` when none is named.
   */
  endUser?: string | undefined
  /** The model named in the path, on Gemini's routes (`/v1beta/models/{model}:…`). */
  pathModel?: string | undefined
  /** The id named in the path, on `GET /v1/responses/{id}`. */
  pathId?: string | undefined
  /** Fields of the request's event, filled in as they become known. */
  event: RequestEventDraft
  /** Set by a handler whose response is a stream: it calls `complete` when the stream ends. */
  eventDeferred: boolean
  /** Emits the request's event; only the first call counts. */
  complete: (status: number, outcome: UsageOutcome) => void
  waitUntil: (promise: Promise<unknown>) => void
  /** The request's OpenTelemetry spans, when `telemetry` is on. */
  trace?: RequestTrace | undefined
  /**
   * Set by the interceptor chain when an interceptor wants the settled answer: `complete` calls it
   * once, after the request's event (a stream's when the stream has ended).
   */
  onSettled: ((status: number, outcome: UsageOutcome) => void) | undefined
}

/**
 * A request's state once its key is authenticated: what every route handler gets, so that no
 * handler has to assert that the key is there.
 */
export type AuthedScope = RequestScope & { key: KeyRecord }
