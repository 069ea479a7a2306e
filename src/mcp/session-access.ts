import { GatewayError } from '../errors'
import type { AuthedScope } from '../gateway-runtime'
import type { RequestHeaders } from '../http/gateway-request'
import { isJsonObject } from '../internal/json'
import type { McpGateway } from './mcp-gateway'
import type { McpSession } from './session-store'

/** The protocol revisions the gateway serves (Streamable HTTP, sessions), newest first. */
export const supportedVersions = ['2025-11-25', '2025-06-18', '2025-03-26'] as const

/** The most of a client's `initialize` capabilities and info a session keeps, as JSON text. */
const maxClientFieldsBytes = 16 * 1024

/**
 * Opens a session for `initialize`: the client's requested revision when the gateway serves it,
 * else the newest (MCP's negotiation), a random id (122 bits, ASCII), and the key it belongs to.
 */
export async function openSession(
  gateway: McpGateway,
  scope: AuthedScope,
  params: Record<string, unknown> | undefined,
  server: string | undefined,
): Promise<McpSession> {
  const asked = params?.['protocolVersion']
  const version = supportedVersions.find((v) => v === asked) ?? supportedVersions[0]
  const capabilities = params?.['capabilities']
  const clientInfo = params?.['clientInfo']
  // Kept with the session and sent to every server it opens: a client's real capabilities and
  // info are a few hundred bytes; megabytes of them would be held per session.
  if (JSON.stringify([capabilities ?? null, clientInfo ?? null]).length > maxClientFieldsBytes) {
    throw new GatewayError(
      'invalid_request',
      `initialize: capabilities and clientInfo together exceed ${maxClientFieldsBytes} bytes.`,
    )
  }
  const session: McpSession = {
    id: crypto.randomUUID(),
    keyId: scope.key.id,
    ...(server === undefined ? {} : { server }),
    protocolVersion: version,
    clientCapabilities: isJsonObject(capabilities) ? capabilities : {},
    clientInfo: isJsonObject(clientInfo) ? clientInfo : { name: 'mcp-client', version: '0' },
    upstream: new Map(),
  }
  // Past the key's bound its least recently used sessions go, rather than `initialize` being
  // refused: clients seldom DELETE theirs, and a busy key would be locked out for the TTL.
  const evicted = await gateway.sessions.put(session, gateway.config.maxSessionsPerKey)
  for (const old of evicted ?? []) {
    scope.waitUntil(gateway.upstreams.close(old, gateway.endpoints))
  }
  return session
}

/**
 * The session a request names (`Mcp-Session-Id`): missing is 400, and one that is unknown,
 * expired, opened by another key or on another path is 404 — the client then starts a new one.
 */
export async function findSession(
  gateway: McpGateway,
  scope: AuthedScope,
  server: string | undefined,
): Promise<McpSession> {
  const id = scope.request.headers.get('mcp-session-id')
  if (id === null || id === '') {
    throw new GatewayError('invalid_request', 'Bad Request: Mcp-Session-Id header is required.')
  }
  if (id.length > 128) throw new GatewayError('not_found', 'Session not found.')
  const session = await gateway.sessions.get(id)
  if (session === undefined || session.keyId !== scope.key.id || session.server !== server) {
    throw new GatewayError('not_found', 'Session not found.')
  }
  return session
}

/** A request's `MCP-Protocol-Version`, when it sends one, must be a revision the gateway serves. */
export function requireVersionHeader(headers: RequestHeaders): void {
  const version = headers.get('mcp-protocol-version')
  if (version === null) return
  if (!(supportedVersions as readonly string[]).includes(version)) {
    throw new GatewayError(
      'invalid_request',
      `Bad Request: unsupported MCP-Protocol-Version (supported: ${supportedVersions.join(', ')}).`,
    )
  }
}

/**
 * DNS rebinding protection (the transport's MUST): a browser's `Origin` must name the host the
 * request was sent to, else 403. Requests without `Origin` (SDKs, CLIs) pass; browser apps on
 * other origins are served through the gateway's `cors` policy, which answers their preflight.
 */
export function checkOrigin(scope: AuthedScope): void {
  const origin = scope.request.headers.get('origin')
  if (origin === null) return
  let host: string | undefined
  try {
    host = new URL(origin).host
  } catch {
    host = undefined
  }
  if (host === scope.url.host) return
  throw new GatewayError('permission', 'Forbidden: the Origin does not match the host.')
}
