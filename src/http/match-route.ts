import type { ErrorShape } from '../protocols/protocol-name'

/** The gateway's routes. */
export type RouteName =
  | 'chat.completions'
  | 'messages'
  | 'count_tokens'
  | 'models'
  | 'usage'
  | 'gemini.models'
  | 'gemini.model'
  | 'gemini.generate'
  | 'gemini.stream'
  | 'gemini.count_tokens'
  | 'responses'
  | 'responses.get'
  | 'embeddings'
  | 'gemini.embed'
  | 'gemini.batch_embed'

/**
 * The protocol a route's errors are written in; `header` decides by the request (an
 * `anthropic-version` header means Anthropic's shape), for routes every SDK calls.
 */
export type ErrorProtocol = ErrorShape | 'header'

type RouteEntry = { name: RouteName; method: string; errors: ErrorProtocol }

// Keyed by the client's path: a Map, so that no path can name a member of Object.prototype.
const routes = new Map<string, RouteEntry>([
  ['/v1/chat/completions', { name: 'chat.completions', method: 'POST', errors: 'openai' }],
  ['/v1/messages', { name: 'messages', method: 'POST', errors: 'anthropic' }],
  ['/v1/messages/count_tokens', { name: 'count_tokens', method: 'POST', errors: 'anthropic' }],
  ['/v1/models', { name: 'models', method: 'GET', errors: 'header' }],
  ['/v1/usage', { name: 'usage', method: 'GET', errors: 'header' }],
  // The openai SDK with a base URL lacking `/v1` calls these (checklist RT-05).
  ['/chat/completions', { name: 'chat.completions', method: 'POST', errors: 'openai' }],
  ['/models', { name: 'models', method: 'GET', errors: 'header' }],
  ['/v1/responses', { name: 'responses', method: 'POST', errors: 'responses' }],
  ['/responses', { name: 'responses', method: 'POST', errors: 'responses' }],
  ['/v1/embeddings', { name: 'embeddings', method: 'POST', errors: 'openai' }],
  ['/embeddings', { name: 'embeddings', method: 'POST', errors: 'openai' }],
])

/** The outcome of matching a request to a route. */
export type RouteMatch =
  | { kind: 'route'; name: RouteName; errors: ErrorProtocol; model?: string; id?: string }
  | { kind: 'wrong-method'; name: RouteName; errors: ErrorProtocol; allow: string }
  | { kind: 'unknown' }

/**
 * Matches a path (already stripped of any base path) and method to a route. The query string
 * never affects routing (checklist RT-01); a trailing slash is tolerated.
 */
export function matchRoute(pathname: string, method: string): RouteMatch {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname
  if (path.startsWith(geminiPrefix)) return matchGeminiRoute(path, method)
  const stored = responsePath.exec(path)
  if (stored !== null) {
    const match = withMethod({ name: 'responses.get', method: 'GET', errors: 'responses' }, method)
    return match.kind === 'route' ? { ...match, id: stored[1]! } : match
  }
  const route = routes.get(path)
  if (route === undefined) return { kind: 'unknown' }
  return withMethod(route, method)
}

const geminiPrefix = '/v1beta/models'

/** `GET /v1/responses/{id}`: a stored response (ids hold letters, digits, `_` and `-`). */
const responsePath = /^(?:\/v1)?\/responses\/([A-Za-z0-9_-]+)$/

// `POST /v1beta/models/x:toString` must be an unknown route, not Object.prototype.toString.
const geminiActions = new Map<string, RouteName>([
  ['generateContent', 'gemini.generate'],
  ['streamGenerateContent', 'gemini.stream'],
  ['countTokens', 'gemini.count_tokens'],
  ['embedContent', 'gemini.embed'],
  ['batchEmbedContents', 'gemini.batch_embed'],
])

/**
 * Gemini's native routes: `GET /v1beta/models`, `GET /v1beta/models/{model}` and
 * `POST /v1beta/models/{model}:{action}`. The model is read from the raw path, with `%2F` decoded,
 * so that a `<group_id>/<model>` pin works both as a raw slash and encoded; the action follows the
 * last colon, since model ids hold dots and dashes but never colons (checklist RT-02).
 */
function matchGeminiRoute(path: string, method: string): RouteMatch {
  if (path === geminiPrefix)
    return withMethod({ name: 'gemini.models', method: 'GET', errors: 'gemini' }, method)
  if (!path.startsWith(`${geminiPrefix}/`)) return { kind: 'unknown' }
  let rest: string
  try {
    rest = decodeURIComponent(path.slice(geminiPrefix.length + 1))
  } catch {
    return { kind: 'unknown' }
  }
  const colon = rest.lastIndexOf(':')
  if (colon < 0) {
    return withMethod({ name: 'gemini.model', method: 'GET', errors: 'gemini' }, method, rest)
  }
  const name = geminiActions.get(rest.slice(colon + 1))
  if (name === undefined || colon === 0) return { kind: 'unknown' }
  return withMethod({ name, method: 'POST', errors: 'gemini' }, method, rest.slice(0, colon))
}

function withMethod(route: RouteEntry, method: string, model?: string): RouteMatch {
  if (method === route.method || (method === 'HEAD' && route.method === 'GET')) {
    return {
      kind: 'route',
      name: route.name,
      errors: route.errors,
      ...(model === undefined ? {} : { model }),
    }
  }
  return {
    kind: 'wrong-method',
    name: route.name,
    errors: route.errors,
    allow: route.method === 'GET' ? 'GET, HEAD' : route.method,
  }
}
