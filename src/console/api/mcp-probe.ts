import { isJsonObject } from '../../internal/json'
import { McpRpcError, rpcCodes } from '../../mcp/json-rpc'
import type { McpGateway } from '../../mcp/mcp-gateway'
import { postUpstream, type UpstreamEndpoint } from '../../mcp/upstream-http'
import { upstreamDefaultVersion } from '../../mcp/upstream-sessions'

/** One upstream MCP server as the console last saw it. */
export type ServerProbe = {
  id: string
  /** Whether its last `initialize` and `tools/list` both answered. */
  reachable: boolean
  checkedAt: number
  /** When a probe last failed (kept across later successes), and why, scrubbed of its secrets. */
  lastErrorAt: number | null
  lastError: string | null
  /** Its tools (their upstream names) as the last good probe listed them; empty when unreachable. */
  tools: Array<{ name: string; description: string | null }>
}

/** How long a probe's answer is reused: the console page never hammers the servers. */
export const probeTtlMs = 30_000
/** How long one server may take to initialize and list its tools. */
const probeTimeoutMs = 5_000
/** Most `tools/list` pages read from one server (a cursor that never ends stops here). */
const maxPages = 20

type ProbeState = {
  at: number
  pending: Promise<ServerProbe[]> | undefined
  lastErrors: Map<string, { at: number; message: string }>
}

const states = new WeakMap<McpGateway, ProbeState>()

/**
 * Every upstream server's health, probed at most once per `probeTtlMs` per gateway (concurrent
 * callers share one probe). The gateway itself keeps no health of its servers (a failed list
 * leaves a server out of that list and nothing more), so the console asks each server as a
 * client would: `initialize`, then `tools/list`, in a session of its own that it then ends. A
 * server is healthy when both answered within 5 s.
 */
export function probeServers(gateway: McpGateway): Promise<ServerProbe[]> {
  let state = states.get(gateway)
  if (state === undefined) {
    state = { at: 0, pending: undefined, lastErrors: new Map() }
    states.set(gateway, state)
  }
  const now = gateway.now()
  if (state.pending !== undefined && now - state.at < probeTtlMs) return state.pending
  const current = state
  current.at = now
  current.pending = Promise.all(
    [...gateway.endpoints.values()].map(async (endpoint): Promise<ServerProbe> => {
      try {
        const tools = await listTools(endpoint)
        const last = current.lastErrors.get(endpoint.id)
        return {
          id: endpoint.id,
          reachable: true,
          checkedAt: now,
          lastErrorAt: last?.at ?? null,
          lastError: last?.message ?? null,
          tools,
        }
      } catch (error) {
        const message =
          error instanceof McpRpcError
            ? error.message
            : `MCP server "${endpoint.id}" failed: no answer within ${probeTimeoutMs / 1000} s`
        current.lastErrors.set(endpoint.id, { at: now, message })
        return {
          id: endpoint.id,
          reachable: false,
          checkedAt: now,
          lastErrorAt: now,
          lastError: message,
          tools: [],
        }
      }
    }),
  )
  return current.pending
}

/** A probe of one server: its tools, or a throw. The probe's session is ended either way. */
async function listTools(endpoint: UpstreamEndpoint): Promise<ServerProbe['tools']> {
  const signal = AbortSignal.timeout(probeTimeoutMs)
  const opened = await postUpstream(
    endpoint,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: upstreamDefaultVersion,
        capabilities: {},
        clientInfo: { name: 'model-gateway-console', version: '1' },
      },
    },
    { signal },
  )
  const initialized = await resultOf(opened.messages, 0, endpoint)
  const protocolVersion =
    typeof initialized['protocolVersion'] === 'string'
      ? initialized['protocolVersion']
      : upstreamDefaultVersion
  const context = { sessionId: opened.sessionId, protocolVersion, signal }
  try {
    const done = await postUpstream(
      endpoint,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      context,
    )
    for await (const _ of done.messages) void _
    const tools: ServerProbe['tools'] = []
    let cursor: string | undefined
    for (let page = 1; page <= maxPages; page++) {
      const reply = await postUpstream(
        endpoint,
        {
          jsonrpc: '2.0',
          id: page,
          method: 'tools/list',
          ...(cursor === undefined ? {} : { params: { cursor } }),
        },
        context,
      )
      const result = await resultOf(reply.messages, page, endpoint)
      for (const tool of Array.isArray(result['tools']) ? result['tools'] : []) {
        if (!isJsonObject(tool) || typeof tool['name'] !== 'string') continue
        const description = tool['description']
        tools.push({
          name: tool['name'],
          description: typeof description === 'string' ? description.slice(0, 500) : null,
        })
      }
      cursor = typeof result['nextCursor'] === 'string' ? result['nextCursor'] : undefined
      if (cursor === undefined) break
    }
    return tools
  } finally {
    if (opened.sessionId !== undefined) void endSession(endpoint, opened.sessionId)
  }
}

/** The result of the response with `id` among a reply's messages; throws on an error or none. */
async function resultOf(
  messages: AsyncIterable<Record<string, unknown>>,
  id: number,
  endpoint: UpstreamEndpoint,
): Promise<Record<string, unknown>> {
  for await (const message of messages) {
    if (message['id'] !== id) continue
    const result = message['result']
    if (isJsonObject(result)) return result
    const error = message['error']
    const text = isJsonObject(error) && typeof error['message'] === 'string' ? error['message'] : ''
    throw new McpRpcError(
      rpcCodes.upstreamFailed,
      endpoint.auth.scrub(`MCP server "${endpoint.id}" refused: ${text.slice(0, 300)}`),
    )
  }
  throw new McpRpcError(
    rpcCodes.upstreamFailed,
    `MCP server "${endpoint.id}" ended its answer without a response.`,
  )
}

/** Ends the probe's session (`DELETE`); a failure is of no consequence. */
async function endSession(endpoint: UpstreamEndpoint, sessionId: string): Promise<void> {
  try {
    const response = await endpoint.fetch(endpoint.url, {
      method: 'DELETE',
      headers: { ...(await endpoint.auth.headers()), 'mcp-session-id': sessionId },
      signal: AbortSignal.timeout(probeTimeoutMs),
    })
    await response.body?.cancel()
  } catch {
    // The server forgets an idle session on its own.
  }
}
