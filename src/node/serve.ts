import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { GatewayFetch } from '../gateway'
import { toNodeHandler } from './to-node-handler'

/** Where to listen. */
export type ServeOptions = { port?: number; host?: string }

/**
 * A gateway listening on a port. `close()` stops listening, ends open connections (in-flight
 * streams end as aborted, with the usage seen so far), then awaits the gateway's own `close()`,
 * which settles their usage and drains the usage ledger: once it resolves, nothing is left to
 * write.
 */
export type ServedGateway = { server: Server; url: string; close(): Promise<void> }

/**
 * Serves a gateway with `node:http` and resolves once it listens. Build the gateway with
 * `fetch: createNodeFetch()`, as the CLI does: on Node its upstream calls then cost about a third
 * less CPU than with the global fetch (docs/decisions/0002-node-upstream-transport.md).
 *
 * @example
 * const gateway = createGateway({ ...config, fetch: createNodeFetch() })
 * const { url, close } = await serveGateway(gateway, { port: 8787 })
 */
export function serveGateway(
  handler: GatewayFetch & { close?: () => Promise<void> },
  options: ServeOptions = {},
): Promise<ServedGateway> {
  const server = createServer(toNodeHandler(handler))
  // Streams may idle for minutes while a model thinks; the gateway has its own idle timeout.
  server.requestTimeout = 0
  server.keepAliveTimeout = 65_000
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 8787, options.host ?? '127.0.0.1', () => {
      server.off('error', reject)
      const address = server.address() as AddressInfo
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
      resolve({
        server,
        url: `http://${host}:${address.port}`,
        close: async () => {
          await new Promise<void>((done) => {
            server.close(() => done())
            server.closeAllConnections()
          })
          await handler.close?.()
        },
      })
    })
  })
}
