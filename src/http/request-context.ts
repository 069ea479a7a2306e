import type { ErrorShape } from '../protocols/protocol-name'
import type { RequestHeaders } from './gateway-request'

/** What runtimes that keep a request alive past its response pass in (Workers' `ctx`). */
export type GatewayContext = { waitUntil?(promise: Promise<unknown>): void }

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
