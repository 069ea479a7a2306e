import { authenticate } from './auth/authenticate'
import { readCredential } from './auth/credentials'
import { maskKey, maskUnverifiedKey } from './auth/mask-key'
import type { ValidGatewayConfig } from './config/schema'
import { GatewayError, toGatewayError } from './errors'
import type { GatewayParts } from './gateway-assemble'
import type { AuthedScope, RequestScope } from './gateway-runtime'
import { withKeyTeam, type KeyWithTeam } from './auth/key-team'
import { checkEndUser, headerEndUser } from './relay/end-user'
import { builtInRoutes } from './handlers/built-in-routes'
import { mcpRoutes } from './mcp/mcp-routes'
import { createCorsPolicy } from './http/cors'
import type { GatewayAnswer } from './http/gateway-answer'
import type { GatewayRequest } from './http/gateway-request'
import { compileRoutes, type ErrorRenderer } from './http/route-table'
import { parseRequestUrl, pathOfUnparsedUrl } from './http/request-url'
import {
  contextEndUser,
  guessErrorShape,
  stripBasePath,
  waitUntilOf,
  type GatewayContext,
} from './http/request-context'
import { logField } from './observability/log-field'
import { completeRequestEvent, startRequestEvent } from './observability/request-event'
import { createRequestTracer } from './observability/request-tracer'
import { renderError, type ErrorShape } from './protocols/render-error'
import { ClientGoneError } from './upstream/classify-failure'
import type { UsageOutcome } from './usage/usage-meter'

/** The gateway over the runtime-neutral request and answer shapes. */
export type GatewayHandle = (
  request: GatewayRequest,
  context?: GatewayContext | object,
) => Promise<GatewayAnswer>

/**
 * The gateway's request path: parse the URL, answer a CORS preflight, match the route, shed past
 * `maxInFlight`, authenticate, run the route's handler, and answer any failure in the error shape
 * of the route (or of the path and headers, for an unknown one). Every request's event is emitted
 * once, when its answer is complete. The WHATWG handler and the Node adapter both drive it, so
 * there is one copy of this logic.
 */
export function createGatewayHandle(valid: ValidGatewayConfig, parts: GatewayParts): GatewayHandle {
  const { runtime, lifecycle } = parts
  const now = runtime.now
  const onEvent = valid.onEvent
  const basePath = valid.basePath
  const maxInFlight = valid.maxInFlight
  const startTrace = createRequestTracer(
    valid.telemetry,
    async () => await parts.selector.health(),
    now,
  )
  const routes = compileRoutes(
    parts.mcp === undefined ? builtInRoutes : [...builtInRoutes, ...mcpRoutes(parts.mcp)],
  )
  const cors =
    valid.cors === undefined
      ? undefined
      : createCorsPolicy(valid.cors, valid.forwardHeaders, routes)

  /** A request whose URL does not parse: 400 in the shape its path suggests, never a 500. */
  function answerMalformedUrl(
    request: GatewayRequest,
    requestId: string,
    startedAt: number,
  ): GatewayAnswer {
    const path = pathOfUnparsedUrl(request.url)
    const local = stripBasePath(path, basePath)
    const match = local === undefined ? undefined : routes.match(local, request.method)
    const shape =
      match !== undefined && match.kind !== 'unknown' && match.route.errors !== 'header'
        ? match.route.errors
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
        route: match?.kind === 'unknown' || match === undefined ? 'unknown' : match.route.name,
        startedAt,
        status: response.status,
        outcome: 'error',
        durationMs: now() - startedAt,
        error: { code: error.code, message: error.message },
      })
    }
    return response
  }

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
    let answerAs: ErrorShape | ErrorRenderer = guessErrorShape(url.pathname, request.headers)
    let emitted = false
    const scope: RequestScope = {
      request,
      url,
      requestId,
      startedAt,
      key: undefined,
      pathModel: undefined,
      pathId: undefined,
      event: startRequestEvent(requestId, request.method, url.pathname, 'unknown', startedAt),
      eventDeferred: false,
      trace: undefined,
      onSettled: undefined,
      waitUntil,
      complete(status: number, outcome: UsageOutcome) {
        if (emitted) return
        emitted = true
        lifecycle.end()
        // No listener, no event: building it is measurable work on every request.
        if (onEvent !== undefined || scope.trace !== undefined) {
          const event = completeRequestEvent(scope.event, status, outcome, now() - startedAt)
          scope.trace?.end(event)
          runtime.emit(event)
        }
        scope.onSettled?.(status, outcome)
      },
    }
    if (startTrace !== undefined) {
      const started = startTrace(request)
      scope.trace = started instanceof Promise ? await started : started
      if (scope.trace !== undefined) {
        scope.event.traceId = scope.trace.traceId
        scope.event.spanId = scope.trace.spanId
      }
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
        pathname === undefined
          ? { kind: 'unknown' as const }
          : routes.match(pathname, request.method)
      if (match.kind === 'unknown') {
        throw new GatewayError('not_found', `Unknown route: ${request.method} ${url.pathname}`)
      }
      const route = match.route
      scope.event.route = route.name
      if (route.errors !== 'header') answerAs = route.errors
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
      // The id a database key's text names is shown only once the store knows the key.
      scope.event.key = maskUnverifiedKey(secret)
      const found = authenticate(secret, parts.keyStoreReady() ?? (await runtime.keyStore()), now)
      const record = found instanceof Promise ? await found : found
      scope.event.key = maskKey(secret)
      scope.event.keyId = record.id
      const teamed = withKeyTeam(record, runtime.teams)
      const authed = authenticated(scope, teamed instanceof Promise ? await teamed : teamed)
      noteEndUser(scope, context)
      response = await route.handler(runtime, authed)
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

  return handle
}

/** The request's scope once its key is known: the one place the scope becomes an `AuthedScope`. */
function authenticated(scope: RequestScope, { key, team }: KeyWithTeam): AuthedScope {
  scope.key = key
  scope.event.keyId = key.id
  if (team !== undefined) {
    scope.team = team
    scope.event.team = team.id
  }
  return scope as AuthedScope
}

/**
 * The end user the host app (`context.endUser`) or the `x-gateway-user` header names, checked;
 * the body's field is read later, by the route (`noteBodyEndUser`), and comes after both.
 */
function noteEndUser(scope: RequestScope, context: GatewayContext | object | undefined): void {
  const endUser =
    checkEndUser(contextEndUser(context), 'endUser') ?? headerEndUser(scope.request.headers)
  if (endUser === undefined) return
  scope.endUser = endUser
  scope.event.endUser = endUser
}

/** The answer past `maxInFlight`: 503 (529 `overloaded_error` to Anthropic clients), retry soon. */
function atCapacity(): GatewayError {
  return new GatewayError('overloaded', 'The gateway is at capacity; retry shortly.', {
    headers: { 'retry-after': '1' },
  })
}
