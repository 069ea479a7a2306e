import type { GatewayContext, GatewayFetch } from '../gateway'
import type { ConsoleHandler } from './create-console'

/**
 * One fetch handler for a runtime that takes one (Bun, Deno, Workers): requests under the
 * console's path go to the console, the rest to the gateway, with whatever second argument the
 * runtime passes (Deno's `info` and Bun's `server` give the console the client's address for its
 * sign-in limit; Workers' `ctx` keeps the gateway's `waitUntil`).
 *
 * @example
 * const gateway = createGateway(config)
 * Bun.serve({ fetch: withConsole(gateway, createConsole(gateway)) })
 */
export function withConsole(gateway: GatewayFetch, console: ConsoleHandler): GatewayFetch {
  return (request: Request, context?: GatewayContext | object) =>
    console.handles(pathOfUrl(request.url)) ? console(request, context) : gateway(request, context)
}

/** The path of an absolute URL, without parsing it whole (this runs on every request). */
function pathOfUrl(url: string): string {
  const hostStart = url.indexOf('//')
  const pathStart = url.indexOf('/', hostStart < 0 ? 0 : hostStart + 2)
  if (pathStart < 0) return '/'
  const end = url.slice(pathStart).search(/[?#]/)
  return end < 0 ? url.slice(pathStart) : url.slice(pathStart, pathStart + end)
}
