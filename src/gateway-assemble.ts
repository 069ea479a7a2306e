import { hashKey, type KeyHasher } from './auth/hash-key'
import type { KeyStore } from './auth/key-store'
import {
  buildGroupRegistry,
  buildKeyStore,
  hashConfigKeys,
  type ConfigKey,
} from './config/build-parts'
import type { ValidGatewayConfig } from './config/schema'
import { createHealthSelector } from './failover/health-selector'
import { createRetryBudgets } from './failover/retry-budget'
import type { UpstreamSelector } from './failover/upstream-selector'
import { createGatewayLifecycle } from './gateway-lifecycle'
import type { GatewayRuntime } from './gateway-runtime'
import { buildTeamStore, checkMeterSubjectKinds, organisationOf } from './config/team-parts'
import { createInterceptorChain } from './intercept/interceptor-chain'
import type { RequestEvent } from './observability/request-event'
import { createPriceCatalogue } from './pricing/price-catalogue'
import { createMemoryResponseStore } from './response-store/memory-response-store'
import { createMemoryResponseCache } from './cache/cache-store'
import { createCacheStats } from './cache/cache-stats'
import { createScrubbers, secretsOf } from './upstream/secret-scrubber'
import type { BudgetAlert } from './usage/budget-alert'
import { createMemoryUsageMeter } from './usage/memory-usage-meter'
import { createMcpGateway, type McpGateway } from './mcp/mcp-gateway'

/** A gateway's parts, built once from its validated config by `assembleGateway`. */
export type GatewayParts = {
  runtime: GatewayRuntime
  selector: UpstreamSelector
  lifecycle: ReturnType<typeof createGatewayLifecycle>
  /** The config's keys, hashed (started at once, so that the first request rarely waits). */
  configKeys: Promise<readonly ConfigKey[]>
  /** The key store once it is built, so that a request skips the promise after that. */
  keyStoreReady(): KeyStore | undefined
  /** The MCP gateway, when the config has an `mcp` section. */
  mcp: McpGateway | undefined
  /** Hashes presented keys with `hash` from now on, unless the config named its own `hashKey`. */
  preferKeyHash(hash: KeyHasher): void
}

/**
 * Builds what a request needs from the validated config: the key store, the group registry and
 * its upstream selector, the usage meter, the response store, the price catalogue, the event and
 * budget-alert listeners, and the lifecycle that closes the parts holding resources. In-memory
 * parts stand in for any store the config does not name.
 */
export function assembleGateway(valid: ValidGatewayConfig): GatewayParts {
  const now = valid.now ?? Date.now
  const onEvent = valid.onEvent
  // Web Crypto unless the config or a runtime adapter (`preferKeyHash`) names a faster hash.
  let keyHash: KeyHasher = valid.hashKey ?? hashKey
  // Hashing the config's keys may be asynchronous; start it now so the first request rarely waits.
  const hash: KeyHasher = (secret) => keyHash(secret)
  const configKeysPromise = hashConfigKeys(valid, hash)
  const keyStorePromise: Promise<KeyStore> = configKeysPromise.then((keys) =>
    buildKeyStore(valid, keys, hash),
  )
  let keyStoreReady: KeyStore | undefined
  keyStorePromise.then(
    (store) => (keyStoreReady = store),
    () => undefined,
  )
  const meter = valid.usageMeter ?? createMemoryUsageMeter({ now })
  checkMeterSubjectKinds(valid, meter)
  const responseStore = valid.responseStore ?? createMemoryResponseStore()
  const registry = buildGroupRegistry(valid, now)
  const groups = registry.list()
  const random = valid.random ?? Math.random
  const selector =
    valid.upstreamSelector ??
    createHealthSelector({ registry, now, random, circuitStore: valid.circuitStore })
  const lifecycle = createGatewayLifecycle(
    [valid.usageLedger, valid.keyStore, meter, responseStore, selector].filter(
      (part) => part !== undefined,
    ),
    meter,
  )
  const runtime: GatewayRuntime = {
    keyStore: () => keyStorePromise,
    registry,
    selector,
    retryBudget: createRetryBudgets(now),
    meter,
    ledger: valid.usageLedger,
    responseStore,
    responseCache: valid.responseCache ?? createMemoryResponseCache(),
    cacheStats: createCacheStats(),
    groupIdRouting: valid.groupIdRouting,
    maxBodyBytes: valid.maxBodyBytes,
    maxResponseBytes: valid.maxResponseBytes,
    upstreamTimeoutMs: valid.upstreamTimeoutMs,
    streamIdleTimeoutMs: valid.streamIdleTimeoutMs,
    maxStreamMs: valid.maxStreamMs,
    defaultOutputTokens: valid.defaultOutputTokens,
    forwardHeaders: valid.forwardHeaders,
    createdAt: Math.floor(now() / 1000),
    now,
    random,
    generateId: valid.generateId ?? (() => `req_${crypto.randomUUID().replaceAll('-', '')}`),
    // A custom registry's providers are only known per call: each scrubs its own secrets then.
    scrubberFor: createScrubbers(groups instanceof Promise ? [] : secretsOf(groups)),
    emit: (event: RequestEvent) => {
      if (onEvent === undefined) return
      try {
        onEvent(event)
      } catch (error) {
        console.error('[model-gateway] onEvent threw:', error)
      }
    },
    interceptors: createInterceptorChain(valid.interceptors),
    teams: buildTeamStore(valid),
    organisation: organisationOf(valid),
    prices: createPriceCatalogue({ builtIn: valid.builtInPrices, overrides: valid.prices }),
    unpricedModels: valid.unpricedModels,
    budgetAlert: (alert: BudgetAlert) => {
      const listener = valid.onBudgetAlert
      if (listener === undefined) return
      try {
        listener(alert)
      } catch (error) {
        console.error('[model-gateway] onBudgetAlert threw:', error)
      }
    },
  }
  return {
    runtime,
    selector,
    lifecycle,
    configKeys: configKeysPromise,
    keyStoreReady: () => keyStoreReady,
    mcp:
      valid.mcp === undefined
        ? undefined
        : createMcpGateway(valid.mcp, {
            fetch: valid.fetch ?? ((input, init) => fetch(input, init)),
            now,
            sessionStore: valid.mcpSessionStore,
            transports: valid.mcpTransports,
          }),
    preferKeyHash(hash) {
      if (valid.hashKey === undefined) keyHash = hash
    },
  }
}
