import { hashKey } from '../../auth/hash-key'
import { timingSafeEqual } from '../../auth/timing-safe-equal'
import type { RouteHandler } from '../probes'

/**
 * A metrics handler (`createPrometheusMetrics(…).handler`) served at `path` behind a bearer token:
 * a request without `Authorization: Bearer <token>` gets 401 with `www-authenticate`. The token is
 * compared by its SHA-256, in constant time.
 */
export function createMetricsRoute(
  handler: (request: Request) => Promise<Response>,
  options: { path?: string | undefined; token: string },
): RouteHandler {
  const path = options.path ?? '/metrics'
  const expected = hashKey(options.token)
  const route = async (request: Request): Promise<Response> => {
    const header = request.headers.get('authorization') ?? ''
    const presented = /^Bearer +(\S+)$/i.exec(header)?.[1]
    const ok = presented !== undefined && timingSafeEqual(await hashKey(presented), await expected)
    if (!ok) {
      return new Response('Unauthorized\n', {
        status: 401,
        headers: { 'www-authenticate': 'Bearer realm="metrics"', 'cache-control': 'no-store' },
      })
    }
    return await handler(request)
  }
  return Object.assign(route, { handles: (pathname: string) => pathname === path })
}
