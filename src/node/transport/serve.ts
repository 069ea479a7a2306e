import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { GatewayFetch } from '../../gateway'
import { toNodeHandler, type MountedHandler } from './to-node-handler'

/** Where to listen, and how long a client may take to send its request. */
export type ServeOptions = {
  port?: number
  host?: string
  /**
   * The longest a client may take to send a whole request, headers and body (default 300000, five
   * minutes: a 32 MiB body at about 1 Mbit/s). Past it the connection gets a 408 and is closed, so
   * a client dribbling its body a byte at a time cannot hold it. It never limits the answer: a
   * stream may run for as long as the gateway's own limits allow.
   */
  requestTimeoutMs?: number
  /**
   * A handler served beside the gateway for the paths it `handles`: the console of
   * `model-gateway/console` (`createConsole(gateway)`). Every other request goes to the gateway.
   */
  console?: MountedHandler | undefined
}

/**
 * A gateway listening on a port. `close()` stops listening, ends open connections (in-flight
 * streams end as aborted, with the usage seen so far), then awaits the gateway's own `close()`,
 * which settles their usage and drains the usage ledger: once it resolves, nothing is left to
 * write.
 */
export type ServedGateway = { server: Server; url: string; close(): Promise<void> }

/** Node's own default: the time a client has to send the request's headers. */
const headersTimeoutMs = 60_000

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
  const requestTimeout = options.requestTimeoutMs ?? 300_000
  if (!Number.isInteger(requestTimeout) || requestTimeout <= 0) {
    throw new RangeError('requestTimeoutMs must be a positive integer.')
  }
  const server = createServer(
    {
      // Node counts this until the request is received in full, so it never cuts an answer short.
      requestTimeout,
      headersTimeout: Math.min(headersTimeoutMs, requestTimeout),
      // How often Node looks for expired requests: a tenth of the limit, so a request is cut at
      // most 10 % late (Node's default of 30 s would let a short limit run several times over).
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(requestTimeout / 10))),
    },
    toNodeHandler(handler, { console: options.console }),
  )
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
