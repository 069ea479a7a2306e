import { isJsonObject, stringOf } from '../internal/json'
import { McpRpcError, rpcCodes } from './json-rpc'
import type { McpSession, McpSessionStore } from './session-store'
import {
  failed,
  postUpstream as postHttp,
  UpstreamSessionGone,
  type UpstreamEndpoint,
} from './upstream-http'

/** `postUpstream`, or the endpoint's own transport when it has one (HTTP+SSE, stdio). */
const postUpstream: typeof postHttp = (endpoint, message, context) =>
  endpoint.transport === undefined
    ? postHttp(endpoint, message, context)
    : endpoint.transport.post(message, context)

/** The protocol revision the gateway speaks to upstreams when the client asked for none it knows. */
export const upstreamDefaultVersion = '2025-11-25'

/**
 * Upstream sessions of client sessions: each client session gets its own session on each server
 * it uses, opened lazily on first use and recorded in the session store, so that another instance
 * serving the client's next request reuses it (a new transport per operation loses it: LiteLLM
 * #20242). A server that forgot its session (404) gets a new one, once per request.
 */
export function createUpstreamSessions(store: McpSessionStore) {
  async function open(session: McpSession, endpoint: UpstreamEndpoint, signal: AbortSignal) {
    const reply = await postUpstream(
      endpoint,
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: session.protocolVersion,
          capabilities: session.clientCapabilities,
          clientInfo: session.clientInfo,
        },
      },
      { signal },
    )
    let version = session.protocolVersion
    for await (const message of reply.messages) {
      if (message['id'] !== 0) continue
      const result = message['result']
      if (!isJsonObject(result)) throw failed(endpoint, 'it refused to initialize')
      if (typeof result['protocolVersion'] === 'string') version = result['protocolVersion']
      break
    }
    const sessionId = reply.sessionId ?? ''
    await drain(
      postUpstream(
        endpoint,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { sessionId, protocolVersion: version, signal },
      ),
    )
    const value = `${version} ${sessionId}`
    session.upstream.set(endpoint.id, value)
    await store.setUpstream(session.id, endpoint.id, value)
    return value
  }

  async function context(session: McpSession, endpoint: UpstreamEndpoint, signal: AbortSignal) {
    const value = session.upstream.get(endpoint.id) ?? (await open(session, endpoint, signal))
    const space = value.indexOf(' ')
    return { protocolVersion: value.slice(0, space), sessionId: value.slice(space + 1), signal }
  }

  return {
    /**
     * Sends a message of the client session to a server, opening the session's upstream session
     * first when it has none; the server's messages come back in order.
     */
    async send(
      session: McpSession,
      endpoint: UpstreamEndpoint,
      message: Record<string, unknown>,
      signal: AbortSignal,
    ): Promise<AsyncIterable<Record<string, unknown>>> {
      try {
        const reply = await postUpstream(
          endpoint,
          message,
          await context(session, endpoint, signal),
        )
        return reply.messages
      } catch (error) {
        if (!(error instanceof UpstreamSessionGone)) throw error
        session.upstream.delete(endpoint.id)
        const reply = await postUpstream(
          endpoint,
          message,
          await context(session, endpoint, signal),
        )
        return reply.messages
      }
    },
    /** Sends a request and returns its result (the server's other messages are dropped). */
    async call(
      session: McpSession,
      endpoint: UpstreamEndpoint,
      method: string,
      params: Record<string, unknown> | undefined,
      signal: AbortSignal,
    ): Promise<Record<string, unknown>> {
      const id = `gw-${method}`
      const message = { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }
      for await (const reply of await this.send(session, endpoint, message, signal)) {
        if (reply['id'] !== id) continue
        const error = reply['error']
        if (isJsonObject(error)) {
          throw new McpRpcError(
            typeof error['code'] === 'number' ? error['code'] : rpcCodes.upstreamFailed,
            endpoint.auth.scrub(stringOf(error['message'] ?? 'error')),
          )
        }
        const result = reply['result']
        return isJsonObject(result) ? result : {}
      }
      throw failed(endpoint, `it ended its answer to ${method} without a response`)
    },
    /** Ends the session's upstream sessions (client `DELETE`); failures are ignored. */
    async close(session: McpSession, endpoints: ReadonlyMap<string, UpstreamEndpoint>) {
      await Promise.allSettled(
        [...session.upstream].map(async ([server, value]) => {
          const endpoint = endpoints.get(server)
          const sessionId = value.slice(value.indexOf(' ') + 1)
          if (endpoint === undefined || sessionId === '') return
          if (endpoint.transport !== undefined) return endpoint.transport.end?.(sessionId)
          const response = await endpoint.fetch(endpoint.url, {
            method: 'DELETE',
            headers: { ...(await endpoint.auth.headers()), 'mcp-session-id': sessionId },
            signal: AbortSignal.timeout(5000),
          })
          await response.body?.cancel()
        }),
      )
    },
  }
}

/** The upstream sessions of a gateway (`createUpstreamSessions`). */
export type UpstreamSessions = ReturnType<typeof createUpstreamSessions>

async function drain(reply: Promise<{ messages: AsyncIterable<unknown> }>) {
  for await (const _ of (await reply).messages) void _
}
