import { authenticate } from './auth/authenticate'
import { hashKey, type KeyHasher } from './auth/hash-key'
import { readCredential } from './auth/credentials'
import type { KeyStore } from './auth/key-store'
import { maskKey } from './auth/mask-key'
import { buildGroupRegistry, buildKeyStore, hashConfigKeys } from './config/build-parts'
import { parseGatewayConfig } from './config/parse-config'
import type { GatewayConfig } from './config/schema'
import { GatewayError, toGatewayError } from './errors'
import { ClientGoneError } from './upstream/classify-failure'
import { gatewayCoreKey, type GatewayCore } from './gateway-core'
import { createGatewayLifecycle, type GatewayCloseOptions } from './gateway-lifecycle'
import { createScrubbers, secretsOf } from './upstream/secret-scrubber'
import type { GatewayRuntime, RequestScope } from './gateway-runtime'
import { handleChatCompletions } from './handlers/chat-completions'
import { handleCountTokens } from './handlers/count-tokens'
import { handleMessages } from './handlers/messages'
import { handleGeminiCountTokens } from './handlers/gemini-count-tokens'
import { handleGeminiGenerate } from './handlers/gemini-generate'
import { handleGeminiGetModel, handleGeminiListModels } from './handlers/gemini-models'
import { handleKeyUsage } from './handlers/key-usage'
import { handleListModels } from './handlers/list-models'
import { handleResponses } from './handlers/responses'
import { handleGetResponse } from './handlers/responses-get'
import { handleEmbeddings } from './handlers/embeddings'
import { handleGeminiEmbed } from './handlers/gemini-embed'
import { createCorsPolicy } from './http/cors'
import { toResponse, type GatewayAnswer } from './http/gateway-answer'
import { fromWebRequest, type GatewayRequest, type RequestHeaders } from './http/gateway-request'
import { matchRoute, type RouteName } from './http/match-route'
import { parseRequestUrl, pathOfUnparsedUrl } from './http/request-url'
import { logField } from './observability/log-field'
import type { RequestEvent } from './observability/request-event'
import { renderError, type ErrorShape } from './protocols/render-error'
import { createMemoryUsageMeter } from './usage/memory-usage-meter'
import { createMemoryResponseStore } from './response-store/memory-response-store'
import { createRetryBudgets } from './failover/retry-budget'
import { createHealthSelector } from './failover/health-selector'
import type { UpstreamHealth } from './failover/upstream-selector'
import type { UsageOutcome } from './usage/usage-meter'
import { createPriceCatalogue } from './pricing/price-catalogue'
import type { BudgetAlert } from './usage/budget-alert'

/** What runtimes that keep a request alive past its response pass in (Workers' `ctx`). */
export type GatewayContext = { waitUntil?(promise: Promise<unknown>): void }

/**
 * A WHATWG handler, mountable on any runtime. The second argument is whatever the runtime passes
 * (Workers' `ctx`, Deno's `ServeHandlerInfo`, Bun's server); only a `waitUntil` method on it is
 * used.
 */
export type GatewayFetch = (
  request: Request,
  context?: GatewayContext | object,
) => Promise<Response>

/**
 * The gateway: a `GatewayFetch`, plus `close()` for a graceful stop. `close()` refuses new
 * requests (503), waits for those in flight and for their usage to settle, then closes the parts
 * that hold resources (a usage ledger writes its queue; a key store stops listening). Stop the
 * server first, then await it; `serveGateway`'s `close()` does both.
 *
 * `health()` reports each upstream's state as the upstream selector keeps it: circuit (`closed`,
 * `open`, `half-open`), when an open one lets a probe through and why it opened, calls in flight,
 * and a key pool's keys, masked, with why one is out of rotation. It is not served over HTTP.
 */
export type GatewayHandler = GatewayFetch & {
  close(options?: GatewayCloseOptions): Promise<void>
  health(): Promise<readonly UpstreamHealth[]>
}

const handlers: Record<
  RouteName,
  (runtime: GatewayRuntime, scope: RequestScope) => Promise<GatewayAnswer>
> = {
  'chat.completions': handleChatCompletions,
  messages: handleMessages,
  count_tokens: handleCountTokens,
  models: handleListModels,
  'gemini.models': handleGeminiListModels,
  'gemini.model': handleGeminiGetModel,
  'gemini.generate': (runtime, scope) => handleGeminiGenerate(runtime, scope, false),
  'gemini.stream': (runtime, scope) => handleGeminiGenerate(runtime, scope, true),
  'gemini.count_tokens': handleGeminiCountTokens,
  usage: handleKeyUsage,
  responses: handleResponses,
  'responses.get': handleGetResponse,
  embeddings: handleEmbeddings,
  'gemini.embed': (runtime, scope) => handleGeminiEmbed(runtime, scope, false),
  'gemini.batch_embed': (runtime, scope) => handleGeminiEmbed(runtime, scope, true),
}

/**
 * Creates the gateway handler. The config is validated once, here: an invalid config throws a
 * `GatewayConfigError` listing every bad field by its path.
 *
 * @example
 * const gateway = createGateway({
 *   groups: [{ id: 'demo', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] }],
 *   keys: [{ key: 'sk-demo-0123456789abcdef', groups: ['demo'] }],
 * })
 * Bun.serve({ fetch: gateway })
 */
export function createGateway(config: GatewayConfig): GatewayHandler {
  const valid = parseGatewayConfig(config)
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
  )
  const runtime: GatewayRuntime = {
    keyStore: () => keyStorePromise,
    registry,
    selector,
    retryBudget: createRetryBudgets(now),
    meter,
    ledger: valid.usageLedger,
    responseStore,
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
  const basePath = valid.basePath
  const maxInFlight = valid.maxInFlight
  const cors =
    valid.cors === undefined ? undefined : createCorsPolicy(valid.cors, valid.forwardHeaders)

  /** A request whose URL does not parse: 400 in the shape its path suggests, never a 500. */
  function answerMalformedUrl(
    request: GatewayRequest,
    requestId: string,
    startedAt: number,
  ): GatewayAnswer {
    const path = pathOfUnparsedUrl(request.url)
    const local = stripBasePath(path, basePath)
    const match = local === undefined ? undefined : matchRoute(local, request.method)
    const shape =
      match !== undefined && match.kind !== 'unknown' && match.errors !== 'header'
        ? match.errors
        : guessErrorShape(path, request.headers)
    const error = new GatewayError(
      'invalid_request',
      'The request URL is malformed: check the Host header.',
    )
    const response = renderError(shape, error, requestId)
    response.headers.set('x-request-id', requestId)
    if (onEvent !== undefined) {
      runtime.emit({
        requestId,
        method: request.method,
        path,
        route: match?.kind === 'unknown' || match === undefined ? 'unknown' : match.name,
        startedAt,
        status: response.status,
        outcome: 'error',
        durationMs: now() - startedAt,
        error: { code: error.code, message: error.message },
      })
    }
    return response
  }

  /**
   * The gateway itself, over the runtime-neutral request and answer shapes: the WHATWG handler
   * below and the Node adapter both drive it, so there is one copy of the gateway's logic.
   */
  async function handle(
    request: GatewayRequest,
    context?: GatewayContext | object,
  ): Promise<GatewayAnswer> {
    const startedAt = now()
    const requestId = runtime.generateId()
    const url = parseRequestUrl(request.url)
    if (url === undefined) {
      const answer = answerMalformedUrl(request, requestId, startedAt)
      cors?.decorate(request.headers, answer.headers)
      return answer
    }
    const runtimeWaitUntil = waitUntilOf(context)
    // Work a response leaves running is also the gateway's to wait for on close().
    const waitUntil = (promise: Promise<unknown>) => {
      lifecycle.track(promise)
      runtimeWaitUntil(promise)
    }
    lifecycle.begin()
    // The route decides the error shape; for an unknown route, the path and headers hint at it.
    let answerAs = guessErrorShape(url.pathname, request.headers)
    let emitted = false
    const scope: RequestScope = {
      request,
      url,
      requestId,
      startedAt,
      key: undefined,
      event: { requestId, method: request.method, path: url.pathname, route: 'unknown', startedAt },
      eventDeferred: false,
      waitUntil,
      complete(status: number, outcome: UsageOutcome) {
        if (emitted) return
        emitted = true
        lifecycle.end()
        // No listener, no event: building it is measurable work on every request.
        if (onEvent === undefined) return
        runtime.emit({ ...scope.event, status, outcome, durationMs: now() - startedAt })
      },
    }
    // A browser's preflight is answered before any key, as CORS requires.
    const preflight = cors?.preflight(
      request.method,
      stripBasePath(url.pathname, basePath),
      request.headers,
    )
    if (preflight !== undefined) {
      scope.event.route = preflight.route
      preflight.answer.headers.set('x-request-id', requestId)
      scope.complete(preflight.answer.status, 'ok')
      return preflight.answer
    }
    let response: GatewayAnswer
    let outcome: UsageOutcome = 'ok'
    try {
      if (lifecycle.closing) {
        throw new GatewayError('overloaded', 'The gateway is shutting down.', { status: 503 })
      }
      const pathname = stripBasePath(url.pathname, basePath)
      const match =
        pathname === undefined ? { kind: 'unknown' as const } : matchRoute(pathname, request.method)
      if (match.kind === 'unknown') {
        throw new GatewayError('not_found', `Unknown route: ${request.method} ${url.pathname}`)
      }
      scope.event.route = match.name
      if (match.errors !== 'header') answerAs = match.errors
      if (match.kind === 'wrong-method') {
        throw new GatewayError(
          'method_not_allowed',
          `${url.pathname} accepts ${match.allow} only.`,
          {
            headers: { allow: match.allow },
          },
        )
      }
      // Shed at once, before any key hashing or body reading: queueing only makes every waiting
      // client later, and many of them gone by the time their turn comes. The count includes this
      // request, and every request until its answer is complete (a stream until it ends).
      if (maxInFlight !== undefined && lifecycle.inFlight > maxInFlight) throw atCapacity()
      if (match.kind === 'route') {
        scope.pathModel = match.model
        scope.pathId = match.id
      }
      const secret = readCredential(request.headers, url)
      scope.event.key = maskKey(secret)
      const found = authenticate(secret, keyStoreReady ?? (await runtime.keyStore()), now)
      scope.key = found instanceof Promise ? await found : found
      scope.event.keyId = scope.key.id
      response = await handlers[match.name](runtime, scope)
    } catch (thrown) {
      // A client that left may surface as any failure (a body read cut short): it is an abort.
      outcome = thrown instanceof ClientGoneError || request.signal.aborted ? 'aborted' : 'error'
      const error =
        outcome === 'aborted'
          ? new GatewayError('internal', 'The client closed the request.', { status: 499 })
          : toGatewayError(thrown)
      if (error.code === 'internal' && outcome === 'error') {
        console.error(`[model-gateway] ${logField(requestId)} failed:`, error.cause ?? error)
      }
      scope.event.error = { code: error.code, message: error.message }
      response = renderError(answerAs, error, requestId)
    }
    response.headers.set('x-request-id', requestId)
    cors?.decorate(request.headers, response.headers)
    if (!scope.eventDeferred) scope.complete(response.status, outcome)
    return response
  }

  const gateway = async function gateway(
    request: Request,
    context?: GatewayContext | object,
  ): Promise<Response> {
    return toResponse(await handle(fromWebRequest(request), context))
  }
  const health = async () => await selector.health()
  const core: GatewayCore = {
    handle,
    preferKeyHash(hash) {
      if (valid.hashKey === undefined) keyHash = hash
    },
    inspect: () => ({
      runtime,
      basePath,
      configKeys: () => configKeysPromise,
      console: valid.console,
      health,
    }),
  }
  return Object.assign(gateway, { close: lifecycle.close, health, [gatewayCoreKey]: core })
}

/** The answer past `maxInFlight`: 503 (529 `overloaded_error` to Anthropic clients), retry soon. */
function atCapacity(): GatewayError {
  return new GatewayError('overloaded', 'The gateway is at capacity; retry shortly.', {
    headers: { 'retry-after': '1' },
  })
}

/** The runtime's `waitUntil`, bound, or a no-op where the runtime has none. */
function waitUntilOf(
  context: GatewayContext | object | undefined,
): (promise: Promise<unknown>) => void {
  if (context !== undefined && 'waitUntil' in context && typeof context.waitUntil === 'function') {
    const waitUntil = context.waitUntil as (promise: Promise<unknown>) => void
    return (promise) => waitUntil.call(context, promise)
  }
  return () => undefined
}

/** The path below the configured base path, or `undefined` when the request is outside it. */
function stripBasePath(pathname: string, basePath: string | undefined): string | undefined {
  if (basePath === undefined) return pathname
  if (pathname === basePath) return '/'
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : undefined
}

/**
 * The error shape before a route decides it, or on a route every SDK calls (`/v1/models`): a path
 * under `/v1beta/` is Google's, an `anthropic-version` header Anthropic's, anything else OpenAI's.
 */
function guessErrorShape(pathname: string, headers: RequestHeaders): ErrorShape {
  if (pathname.includes('/v1beta/')) return 'gemini'
  return headers.has('anthropic-version') ? 'anthropic' : 'openai'
}
