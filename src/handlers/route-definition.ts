import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import type { GatewayAnswer } from '../http/gateway-answer'
import type { RouteSpec } from '../http/route-table'

/** A route's handler: it runs once the request's key is authenticated. */
export type RouteHandler = (runtime: GatewayRuntime, scope: AuthedScope) => Promise<GatewayAnswer>

/**
 * One route of the gateway, in one place: its name, method and paths, the shape of its errors
 * and its handler. A capability exports its routes as a list of these beside its handlers, and
 * `built-in-routes.ts` adds the list to the gateway's table; no other file names the route.
 */
export type RouteDefinition = RouteSpec & { readonly handler: RouteHandler }
