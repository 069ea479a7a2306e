import type { GatewayError } from '../errors'
import type { ErrorShape } from '../protocols/protocol-name'
import type { GatewayAnswer } from './gateway-answer'

/**
 * The protocol a route's errors are written in; `header` decides by the request (an
 * `anthropic-version` header means Anthropic's shape), for routes every SDK calls.
 */
export type ErrorProtocol = ErrorShape | 'header'

/**
 * An error answer of a route's own, for a capability whose clients speak no vendor protocol (an
 * MCP endpoint answers JSON-RPC): it renders any `GatewayError` thrown on the route.
 */
export type ErrorRenderer = (error: GatewayError, requestId: string) => GatewayAnswer

/**
 * What the table needs of a route: its name (in events and logs), one method, the paths it
 * answers and the shape of its errors. A path is exact (`/v1/chat/completions`) or a pattern
 * that ends in one parameter:
 * - `{id}`: one segment of letters, digits, `_` and `-`, taken as written (`/v1/responses/{id}`);
 * - `{model}`: the rest of the path, percent-decoded, so that `%2F` may stand for the slash of a
 *   `<group_id>/<model>` pin; followed by `:action` for an action on the model, read after the
 *   last colon, since model ids hold dots and dashes but never colons
 *   (`/v1beta/models/{model}:generateContent`).
 *
 * Several routes may share a path with different methods. HEAD is served by a GET route.
 */
export type RouteSpec = {
  readonly name: string
  readonly method: string
  readonly paths: readonly string[]
  readonly errors: ErrorProtocol | ErrorRenderer
}

/** The outcome of matching a request to a route of the table. */
export type RouteMatch<R extends RouteSpec = RouteSpec> =
  | { kind: 'route'; route: R; model?: string; id?: string }
  | { kind: 'wrong-method'; route: R; allow: string }
  | { kind: 'unknown' }

/** A compiled route table: `match` takes a path already stripped of any base path. */
export type RouteTable<R extends RouteSpec = RouteSpec> = {
  /**
   * The route of a path and method. The query string never affects routing (the caller passes
   * the path alone); one trailing slash is tolerated.
   */
  match(pathname: string, method: string): RouteMatch<R>
  readonly routes: readonly R[]
}

/** The routes of one path (or one pattern's action), by method, with their `Allow` header. */
type Endpoint<R extends RouteSpec> = {
  byMethod: Map<string, R>
  first: R
  allow: string
  /** The answers of an exact path, made once: they carry no parameter. */
  found: Map<string, RouteMatch<R>>
  wrong: RouteMatch<R>
}

/** The patterns under one prefix: one parameter kind, a bare route and actions. */
type PatternGroup<R extends RouteSpec> = {
  prefix: string
  param: 'id' | 'model'
  bare: Endpoint<R> | undefined
  actions: Map<string, Endpoint<R>>
}

const unknownRoute = { kind: 'unknown' } as const
const idSegment = /^[A-Za-z0-9_-]+$/
const patternPath = /^(\/[^{}]*\/)\{(id|model)\}(?::([A-Za-z0-9_]+))?$/

/**
 * Builds the table of a gateway's routes, once, when the gateway is built. Exact paths are one
 * `Map` lookup, so that no path can name a member of `Object.prototype`; patterns are tried only
 * when no exact path matches, longest prefix first.
 *
 * @throws Error on a path that is neither exact nor a supported pattern, on two routes with the
 *   same path and method, or on two parameter kinds under one prefix: a programming error,
 *   found when the gateway is built
 */
export function compileRoutes<R extends RouteSpec>(routes: readonly R[]): RouteTable<R> {
  const exact = new Map<string, Map<string, R>>()
  const groups = new Map<string, { param: 'id' | 'model'; actions: Map<string, Map<string, R>> }>()
  const add = (methods: Map<string, R>, route: R, path: string) => {
    if (methods.has(route.method)) throw new Error(`Two routes answer ${route.method} ${path}.`)
    methods.set(route.method, route)
  }
  for (const route of routes) {
    for (const path of route.paths) {
      if (!path.includes('{')) {
        if (!path.startsWith('/') || (path.length > 1 && path.endsWith('/'))) {
          throw new Error(`Route path ${path} must start with / and not end with one.`)
        }
        add(
          getOrAdd(exact, path, () => new Map()),
          route,
          path,
        )
        continue
      }
      const parts = patternPath.exec(path)
      if (parts === null) throw new Error(`Unsupported route pattern ${path}.`)
      const [, prefix, param, action] = parts as unknown as [
        string,
        string,
        'id' | 'model',
        string?,
      ]
      if (param === 'id' && action !== undefined) {
        throw new Error(`Route pattern ${path}: an {id} takes no action.`)
      }
      const group = getOrAdd(groups, prefix, () => ({ param, actions: new Map() }))
      if (group.param !== param) throw new Error(`Two parameter kinds under ${prefix}.`)
      add(
        getOrAdd(group.actions, action ?? '', () => new Map()),
        route,
        path,
      )
    }
  }
  const exactEndpoints = new Map<string, Endpoint<R>>()
  for (const [path, methods] of exact) exactEndpoints.set(path, endpoint(methods))
  const patterns: PatternGroup<R>[] = [...groups]
    .map(([prefix, group]) => {
      const actions = new Map<string, Endpoint<R>>()
      for (const [action, methods] of group.actions) {
        if (action !== '') actions.set(action, endpoint(methods))
      }
      const bare = group.actions.get('')
      return {
        prefix,
        param: group.param,
        bare: bare === undefined ? undefined : endpoint(bare),
        actions,
      }
    })
    .sort((a, b) => b.prefix.length - a.prefix.length)

  return {
    routes,
    match(pathname, method) {
      const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname
      const found = exactEndpoints.get(path)
      if (found !== undefined) return found.found.get(method) ?? found.wrong
      for (const group of patterns) {
        if (path.startsWith(group.prefix)) {
          return matchPattern(group, path.slice(group.prefix.length), method)
        }
      }
      return unknownRoute
    },
  }
}

/**
 * A path under a pattern prefix: once the prefix matched, nothing else is tried, so that a
 * mistyped action is an unknown route rather than some other route's.
 */
function matchPattern<R extends RouteSpec>(
  group: PatternGroup<R>,
  rest: string,
  method: string,
): RouteMatch<R> {
  if (group.param === 'id') {
    if (group.bare === undefined || !idSegment.test(rest)) return unknownRoute
    return withParam(group.bare, method, 'id', rest)
  }
  let decoded: string
  try {
    decoded = decodeURIComponent(rest)
  } catch {
    return unknownRoute
  }
  const colon = decoded.lastIndexOf(':')
  if (colon < 0) {
    return group.bare === undefined ? unknownRoute : withParam(group.bare, method, 'model', decoded)
  }
  const action = group.actions.get(decoded.slice(colon + 1))
  if (action === undefined || colon === 0) return unknownRoute
  return withParam(action, method, 'model', decoded.slice(0, colon))
}

function withParam<R extends RouteSpec>(
  endpoint: Endpoint<R>,
  method: string,
  param: 'id' | 'model',
  value: string,
): RouteMatch<R> {
  const route = endpoint.byMethod.get(method === 'HEAD' ? headOr(endpoint) : method)
  if (route === undefined) return endpoint.wrong
  return param === 'id'
    ? { kind: 'route', route, id: value }
    : { kind: 'route', route, model: value }
}

/** HEAD is answered by the GET route; a path with a HEAD route of its own keeps it. */
function headOr<R extends RouteSpec>(endpoint: Endpoint<R>): string {
  return endpoint.byMethod.has('HEAD') ? 'HEAD' : 'GET'
}

function endpoint<R extends RouteSpec>(byMethod: Map<string, R>): Endpoint<R> {
  const methods = [...byMethod.keys()]
  if (byMethod.has('GET') && !byMethod.has('HEAD'))
    methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD')
  const first = byMethod.values().next().value as R
  const found = new Map<string, RouteMatch<R>>()
  for (const [method, route] of byMethod) found.set(method, { kind: 'route', route })
  const get = byMethod.get('GET')
  if (get !== undefined && !found.has('HEAD')) found.set('HEAD', { kind: 'route', route: get })
  const allow = methods.join(', ')
  return { byMethod, first, allow, found, wrong: { kind: 'wrong-method', route: first, allow } }
}

function getOrAdd<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key)
  if (value === undefined) map.set(key, (value = make()))
  return value
}
