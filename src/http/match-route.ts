/** The gateway's routes. */
export type RouteName = 'chat.completions' | 'models' | 'usage'

const routes: Record<string, { name: RouteName; method: string }> = {
  '/v1/chat/completions': { name: 'chat.completions', method: 'POST' },
  '/v1/models': { name: 'models', method: 'GET' },
  '/v1/usage': { name: 'usage', method: 'GET' },
  // The openai SDK with a base URL lacking `/v1` calls these (checklist RT-05).
  '/chat/completions': { name: 'chat.completions', method: 'POST' },
  '/models': { name: 'models', method: 'GET' },
}

/** The outcome of matching a request to a route. */
export type RouteMatch =
  | { kind: 'route'; name: RouteName }
  | { kind: 'wrong-method'; name: RouteName; allow: string }
  | { kind: 'unknown' }

/**
 * Matches a path (already stripped of any base path) and method to a route. The query string
 * never affects routing (checklist RT-01); a trailing slash is tolerated.
 */
export function matchRoute(pathname: string, method: string): RouteMatch {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname
  const route = routes[path]
  if (route === undefined) return { kind: 'unknown' }
  if (method === route.method || (method === 'HEAD' && route.method === 'GET')) {
    return { kind: 'route', name: route.name }
  }
  return {
    kind: 'wrong-method',
    name: route.name,
    allow: route.method === 'GET' ? 'GET, HEAD' : route.method,
  }
}
