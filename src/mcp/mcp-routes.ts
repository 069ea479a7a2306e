import type { GatewayError } from '../errors'
import { jsonAnswer, type GatewayAnswer } from '../http/gateway-answer'
import type { RouteDefinition } from '../handlers/route-definition'
import { errorResponse, rpcCodes } from './json-rpc'
import type { McpGateway } from './mcp-gateway'
import { handleMcpPost } from './mcp-post'
import { checkOrigin, findSession } from './session-access'

/** Every gateway error on the MCP routes as a JSON-RPC error body, with the error's HTTP status. */
export function renderMcpError(error: GatewayError, _requestId: string): GatewayAnswer {
  const code =
    error.param === 'parse'
      ? rpcCodes.parseError
      : error.status === 401 || error.status === 403
        ? rpcCodes.unauthorized
        : error.status === 413
          ? rpcCodes.tooLarge
          : error.status === 429
            ? rpcCodes.limited
            : error.status < 500
              ? rpcCodes.invalidRequest
              : rpcCodes.internalError
  const answer = jsonAnswer(errorResponse(null, { code, message: error.message }), error.status)
  for (const [name, value] of Object.entries(error.headers ?? {})) answer.headers.set(name, value)
  return answer
}

/**
 * The MCP gateway's routes: `POST`, `GET` and `DELETE` on `mcp.path` (every server the key may
 * use) and on `mcp.path/{server}` (one server, its names unprefixed). `GET` (the standalone
 * server-to-client stream) is answered 405, as the transport allows: server messages travel in
 * the response stream of the request they belong to.
 */
export function mcpRoutes(gateway: McpGateway): RouteDefinition[] {
  const path = gateway.config.path
  const paths = [path, `${path}/{id}`]
  return [
    {
      name: 'mcp',
      method: 'POST',
      paths,
      errors: renderMcpError,
      handler: (runtime, scope) => {
        return handleMcpPost(gateway, runtime, scope)
      },
    },
    {
      name: 'mcp',
      method: 'GET',
      paths,
      errors: renderMcpError,
      handler: async () => {
        const answer = jsonAnswer(
          errorResponse(null, {
            code: rpcCodes.invalidRequest,
            message: 'This endpoint offers no standalone SSE stream; use POST.',
          }),
          405,
        )
        answer.headers.set('allow', 'POST, DELETE')
        return answer
      },
    },
    {
      name: 'mcp',
      method: 'DELETE',
      paths,
      errors: renderMcpError,
      handler: async (_runtime, scope) => {
        checkOrigin(scope)
        const session = await findSession(gateway, scope, scope.pathId)
        await gateway.sessions.delete(session.id, session.keyId)
        scope.waitUntil(gateway.upstreams.close(session, gateway.endpoints))
        return { status: 204, headers: new Map(), body: null }
      },
    },
  ]
}
