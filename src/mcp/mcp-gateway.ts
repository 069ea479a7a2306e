import { createMemoryMcpSessionStore, type McpSessionStore } from './session-store'
import type { McpConfig } from './mcp-types'
import { createUpstreamAuth } from './upstream-auth'
import type { McpTransportFactory } from './upstream-channel'
import type { UpstreamEndpoint } from './upstream-http'
import { createSseTransport } from './upstream-sse'
import { createUpstreamSessions, type UpstreamSessions } from './upstream-sessions'

/** The MCP gateway's state, built once per gateway from the `mcp` config section. */
export type McpGateway = {
  config: McpConfig
  /** The upstream servers reachable over HTTP, by id. */
  endpoints: ReadonlyMap<string, UpstreamEndpoint>
  sessions: McpSessionStore
  upstreams: UpstreamSessions
  /** Calls in flight per key id, on this instance (`mcp.maxCallsInFlight`). */
  inFlight: Map<string, number>
  /** The calls in flight on this instance, by `<session> <request id>`: a cancel aborts one. */
  calls: Map<string, AbortController>
  now: () => number
}

/** What building the MCP gateway needs besides its config section. */
export type McpGatewayOptions = {
  fetch: typeof fetch
  now: () => number
  /** Where sessions are kept; memory by default (one instance). */
  sessionStore?: McpSessionStore | undefined
  /** Endpoints of servers started by the runtime (stdio on Node), by id. */
  extraEndpoints?: readonly UpstreamEndpoint[] | undefined
  /** Builds the transports of `command` (stdio) servers: the Node entry's (`mcpTransports`). */
  transports?: McpTransportFactory | undefined
}

/** Builds the MCP gateway's state: an endpoint per HTTP server, the session store. */
export function createMcpGateway(config: McpConfig, options: McpGatewayOptions): McpGateway {
  const endpoints = new Map<string, UpstreamEndpoint>()
  for (const server of config.servers) {
    const endpoint: UpstreamEndpoint = {
      id: server.id,
      url: server.url ?? '',
      auth: createUpstreamAuth(server, options.fetch, options.now),
      fetch: options.fetch,
      maxResponseBytes: config.maxResponseBytes,
    }
    if (server.url === undefined) {
      endpoint.transport = options.transports?.create(server, config.maxResponseBytes)
      // Refused loudly rather than left out: a server the config names is never silently absent.
      if (endpoint.transport === undefined) {
        throw new Error(
          `mcp.servers: "${server.id}" names a command; stdio servers run only on Node, started by the CLI or createGatewayWithState (elsewhere give its url).`,
        )
      }
    } else if (server.transport === 'sse') endpoint.transport = createSseTransport(endpoint)
    endpoints.set(server.id, endpoint)
  }
  for (const endpoint of options.extraEndpoints ?? []) endpoints.set(endpoint.id, endpoint)
  const sessions =
    options.sessionStore ??
    createMemoryMcpSessionStore({ ttlSeconds: config.sessionTtlSeconds, now: options.now })
  return {
    config,
    endpoints,
    sessions,
    upstreams: createUpstreamSessions(sessions),
    inFlight: new Map(),
    calls: new Map(),
    now: options.now,
  }
}
