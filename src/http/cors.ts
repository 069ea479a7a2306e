import type { AnswerHeaders, GatewayAnswer } from './gateway-answer'
import type { RequestHeaders } from './gateway-request'
import type { RouteTable } from './route-table'
import { upstreamModelHeader } from './upstream-model-header'

/** The `cors` section of a valid config. */
export type CorsConfig = {
  origins: '*' | readonly string[]
  allowHeaders?: readonly string[] | undefined
  exposeHeaders?: readonly string[] | undefined
  maxAgeSeconds?: number | undefined
}

/**
 * The request headers the official SDKs send from a browser: credentials (`authorization`,
 * `x-api-key`, `x-goog-api-key`), the vendors' protocol headers, the Stainless SDKs' telemetry
 * (`x-stainless-*`: openai, @anthropic-ai/sdk), the AI SDK's `user-agent` suffix, and the request
 * ids the gateway takes from clients, and the gateway's own `x-gateway-user` (the end user a page
 * names). A trailing `*` allows every header it begins.
 */
const sdkRequestHeaders = [
  'accept',
  'authorization',
  'content-type',
  'user-agent',
  'x-api-key',
  'x-goog-api-key',
  'x-goog-api-client',
  'anthropic-version',
  'anthropic-beta',
  'anthropic-dangerous-direct-browser-access',
  'openai-organization',
  'openai-project',
  'idempotency-key',
  'x-client-request-id',
  'x-request-id',
  'x-gateway-user',
  'x-stainless-*',
]

/** The gateway's answer headers a page needs to read: the request id, retry hints, rate limits. */
const gatewayAnswerHeaders = [
  'x-request-id',
  'retry-after',
  'retry-after-ms',
  'x-should-retry',
  'x-gateway-dropped-tools',
  // The response cache's verdict (`hit`, `miss`, `bypass`) and a hit's age.
  'x-gateway-cache',
  'age',
  upstreamModelHeader,
  ...['requests', 'tokens'].flatMap((family) =>
    ['limit', 'remaining', 'reset'].map((part) => `x-ratelimit-${part}-${family}`),
  ),
  ...['requests', 'input-tokens', 'output-tokens', 'tokens'].flatMap((family) =>
    ['limit', 'remaining', 'reset'].map((part) => `anthropic-ratelimit-${family}-${part}`),
  ),
]

/** Chromium caps a preflight's cache at two hours; Firefox at a day. */
const defaultMaxAgeSeconds = 7200

/** The CORS answers of a gateway whose config has a `cors` section. */
export type CorsPolicy = {
  /**
   * The answer to a browser's preflight (an `OPTIONS` with `Origin` and
   * `Access-Control-Request-Method`) from an allowed origin, to a path the gateway serves: 204, no
   * key needed. Anything else is not a preflight this policy answers (`undefined`), and goes the
   * usual way (a 405 for `OPTIONS`).
   */
  preflight(
    method: string,
    path: string | undefined,
    headers: RequestHeaders,
  ): { route: string; answer: GatewayAnswer } | undefined
  /** Adds the CORS headers to an answer, errors included, for a request from an allowed origin. */
  decorate(headers: RequestHeaders, answer: AnswerHeaders): void
}

/**
 * Builds the CORS policy of a config. Origins are compared exactly, as browsers serialise them;
 * `"*"` allows any origin and is only ever the config's explicit choice. The requested headers of
 * a preflight are answered with those allowed (the SDKs', the config's `allowHeaders` and the
 * `forwardHeaders`), so that the `x-stainless-*` family needs no list of its members. A preflight
 * is answered for the paths of `routes`, the gateway's table, with the methods they allow.
 */
export function createCorsPolicy(
  config: CorsConfig,
  forwardHeaders: readonly string[],
  routes: RouteTable,
): CorsPolicy {
  const anyOrigin = config.origins === '*'
  const origins = new Set(anyOrigin ? [] : config.origins)
  const allowed = [...sdkRequestHeaders, ...forwardHeaders, ...(config.allowHeaders ?? [])]
  const exactHeaders = new Set(allowed.filter((name) => !name.endsWith('*')))
  const headerPrefixes = allowed
    .filter((name) => name.endsWith('*'))
    .map((name) => name.slice(0, -1))
  const exposed = [...new Set([...gatewayAnswerHeaders, ...(config.exposeHeaders ?? [])])].join(
    ', ',
  )
  const maxAge = String(config.maxAgeSeconds ?? defaultMaxAgeSeconds)

  /** The `access-control-allow-origin` value for a request's origin, if it is allowed. */
  const allowOrigin = (headers: RequestHeaders): string | undefined => {
    const origin = headers.get('origin')
    if (origin === null) return undefined
    if (anyOrigin) return '*'
    return origins.has(origin) ? origin : undefined
  }
  const isAllowedHeader = (name: string) =>
    exactHeaders.has(name) || headerPrefixes.some((prefix) => name.startsWith(prefix))

  return {
    preflight(method, path, headers) {
      if (method !== 'OPTIONS' || path === undefined) return undefined
      const origin = allowOrigin(headers)
      if (origin === undefined || headers.get('access-control-request-method') === null) {
        return undefined
      }
      const match = routes.match(path, 'OPTIONS')
      if (match.kind !== 'wrong-method') return undefined
      const answer: GatewayAnswer = { status: 204, headers: new Map(), body: null }
      answer.headers.set('access-control-allow-origin', origin)
      answer.headers.set('access-control-allow-methods', match.allow)
      const requested = (headers.get('access-control-request-headers') ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter((name) => name !== '' && isAllowedHeader(name))
      if (requested.length > 0) {
        answer.headers.set('access-control-allow-headers', [...new Set(requested)].join(', '))
      }
      answer.headers.set('access-control-max-age', maxAge)
      answer.headers.set(
        'vary',
        anyOrigin
          ? 'access-control-request-headers'
          : 'origin, access-control-request-method, access-control-request-headers',
      )
      return { route: match.route.name, answer }
    },
    decorate(headers, answer) {
      // The answer differs by origin: a cache must not serve one origin's answer to another.
      if (!anyOrigin) answer.set('vary', 'origin')
      const origin = allowOrigin(headers)
      if (origin === undefined) return
      answer.set('access-control-allow-origin', origin)
      answer.set('access-control-expose-headers', exposed)
    },
  }
}
