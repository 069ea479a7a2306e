/** The gateway's routes. */
export type RouteName = 'chat.completions' | 'messages' | 'count_tokens' | 'models' | 'usage'

/**
 * The protocol a route's errors are written in; `header` decides by the request (an
 * `anthropic-version` header means Anthropic's shape), for routes every SDK calls.
 */
export type ErrorProtocol = 'openai' | 'anthropic' | 'header'

type RouteEntry = { name: RouteName; method: string; errors: ErrorProtocol }

const routes: Record<string, RouteEntry> = {
  '/v1/chat/completions': { name: 'chat.completions', method: 'POST', errors: 'openai' },
  '/v1/messages': { name: 'messages', method: 'POST', errors: 'anthropic' },
  '/v1/messages/count_tokens': { name: 'count_tokens', method: 'POST', errors: 'anthropic' },
  '/v1/models': { name: 'models', method: 'GET', errors: 'header' },
  '/v1/usage': { name: 'usage', method: 'GET', errors: 'header' },
  // The openai SDK with a base URL lacking `/v1` calls these (checklist RT-05).
  '/chat/completions': { name: 'chat.completions', method: 'POST', errors: 'openai' },
  '/models': { name: 'models', method: 'GET', errors: 'header' },
}

/** The outcome of matching a request to a route. */
export type RouteMatch =
  | { kind: 'route'; name: RouteName; errors: ErrorProtocol }
  | { kind: 'wrong-method'; name: RouteName; errors: ErrorProtocol; allow: string }
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
    return { kind: 'route', name: route.name, errors: route.errors }
  }
  return {
    kind: 'wrong-method',
    name: route.name,
    errors: route.errors,
    allow: route.method === 'GET' ? 'GET, HEAD' : route.method,
  }
}
