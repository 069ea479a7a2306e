import type { ErrorShape } from '../protocols/protocol-name'
import type { RequestHeaders } from './gateway-request'

/**
 * What runtimes that keep a request alive past its response pass in (Workers' `ctx`), and what a
 * host app that calls the gateway in code may add: the end user it serves the request for, from
 * its own session (`gateway(request, { endUser: session.userId })`). It wins over the
 * `x-gateway-user` header and the body's `user` or `metadata.user_id`.
 */
export type GatewayContext = {
  waitUntil?(promise: Promise<unknown>): void
  /** The end user of this request, 1 to 256 visible ASCII characters. */
  endUser?: string | undefined
}

/** The end user a host app named in the context, unchecked; `undefined` when none. */
export function contextEndUser(context: GatewayContext | object | undefined): unknown {
  if (context === undefined || !('endUser' in context)) return undefined
  return context.endUser
}

/** The runtime's `waitUntil`, bound, or a no-op where the runtime has none. */
export function waitUntilOf(
  context: GatewayContext | object | undefined,
): (promise: Promise<unknown>) => void {
  if (context !== undefined && 'waitUntil' in context && typeof context.waitUntil === 'function') {
    const waitUntil = context.waitUntil as (promise: Promise<unknown>) => void
    return (promise) => waitUntil.call(context, promise)
  }
  return () => undefined
}

/** The path below the configured base path, or `undefined` when the request is outside it. */
export function stripBasePath(pathname: string, basePath: string | undefined): string | undefined {
  if (basePath === undefined) return pathname
  if (pathname === basePath) return '/'
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : undefined
}

/**
 * The error shape before a route decides it, or on a route every SDK calls (`/v1/models`): a path
 * under `/v1beta/` is Google's, an `anthropic-version` header Anthropic's, anything else OpenAI's.
 */
export function guessErrorShape(pathname: string, headers: RequestHeaders): ErrorShape {
  if (pathname.includes('/v1beta/')) return 'gemini'
  return headers.has('anthropic-version') ? 'anthropic' : 'openai'
}
