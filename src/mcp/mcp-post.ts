import { GatewayError } from '../errors'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { jsonAnswer, type GatewayAnswer } from '../http/gateway-answer'
import { scanClientJson } from '../http/client-json'
import { parseJson } from '../internal/json'
import { aggregateList, isListMethod } from './aggregate'
import { forward, rpcAnswer } from './forward'
import { route } from './mcp-targets'
import { McpRpcError, readMessage, resultResponse, rpcCodes, type JsonRpcMessage } from './json-rpc'
import type { McpGateway } from './mcp-gateway'
import { grantsOf, mcpAllowed, type McpGrants } from './permissions'
import { withAdmission } from './request-admission'
import { checkOrigin, findSession, openSession, requireVersionHeader } from './session-access'
import type { McpSession } from './session-store'

/**
 * `POST /mcp` and `POST /mcp/{server}`: one JSON-RPC message of the Streamable HTTP transport.
 * Malformed input is a 4xx with a JSON-RPC error; a request that fails is a JSON-RPC error.
 */
export async function handleMcpPost(
  gateway: McpGateway,
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<GatewayAnswer> {
  const headers = scope.request.headers
  checkOrigin(scope)
  const type = headers.get('content-type') ?? ''
  if (!/^application\/json\b/i.test(type.trim())) {
    throw new GatewayError('invalid_request', 'Content-Type must be application/json.', {
      status: 415,
    })
  }
  const accept = headers.get('accept') ?? '*/*'
  const sse = /text\/event-stream|\*\/\*/i.test(accept)
  if (!sse && !/application\/json|application\/\*/i.test(accept)) {
    throw new GatewayError(
      'invalid_request',
      'Accept must include application/json or text/event-stream.',
      {
        status: 406,
      },
    )
  }
  const text = await scope.request.text(gateway.config.maxRequestBytes)
  // Nesting is bounded before anything parses or clones the message (the LLM routes' limit).
  scanClientJson(text)
  const parsed = parseJson(text)
  if (!parsed.ok)
    throw new GatewayError('invalid_request', 'Parse error: the body is not JSON.', {
      param: 'parse',
    })
  const message = readMessage(parsed.value)
  if ('invalid' in message) throw new GatewayError('invalid_request', message.invalid)
  scope.event.stream = false
  const grants = grantsOf(scope.key.mcp, scope.team?.mcp)
  const pathServer = scope.pathId
  if (message.kind === 'request' && message.method === 'initialize') {
    if (pathServer !== undefined && !serverVisible(gateway, grants, pathServer)) {
      throw new GatewayError('not_found', `No MCP server "${pathServer}" for this key.`)
    }
    const session = await withAdmission(runtime, scope, 'initialize', pathServer, () =>
      openSession(gateway, scope, message.params, pathServer),
    )
    const answer = jsonAnswer(
      resultResponse(message.id, {
        protocolVersion: session.protocolVersion,
        capabilities: { tools: { listChanged: false }, prompts: {}, resources: {}, logging: {} },
        serverInfo: { name: 'model-gateway', version: '1' },
      }),
    )
    answer.headers.set('mcp-session-id', session.id)
    return answer
  }
  requireVersionHeader(headers)
  const session = await findSession(gateway, scope, pathServer)
  if (message.kind !== 'request') {
    await deliver(gateway, session, message, scope)
    return { status: 202, headers: new Map(), body: null }
  }
  const { id, method } = message
  const params = message.params ?? {}
  if (method === 'ping') return jsonAnswer(resultResponse(id, {}))
  const signal = scope.request.signal as AbortSignal
  if (isListMethod(method)) {
    const result = await withAdmission(runtime, scope, method, session.server, () =>
      aggregateList(
        gateway,
        session,
        grants,
        method,
        AbortSignal.timeout(gateway.config.callTimeoutMs),
      ),
    )
    void signal
    const answer = jsonAnswer(resultResponse(id, result))
    answer.headers.set('cache-control', 'private, no-store')
    return answer
  }
  if (method === 'logging/setLevel') {
    await withAdmission(runtime, scope, method, session.server, () =>
      setLevel(gateway, session, grants, params),
    )
    return jsonAnswer(resultResponse(id, {}))
  }
  const target = route(gateway, session, grants, method, params)
  if ('error' in target) return rpcAnswer(id, target.error)
  return forward(gateway, runtime, scope, session, { id, method, ...target }, sse)
}

/** `logging/setLevel` goes to every server of the session the key may use; failures are ignored. */
async function setLevel(
  gateway: McpGateway,
  session: McpSession,
  grants: McpGrants | undefined,
  params: Record<string, unknown>,
): Promise<void> {
  const signal = AbortSignal.timeout(gateway.config.callTimeoutMs)
  await Promise.allSettled(
    [...gateway.endpoints.values()]
      .filter(
        (endpoint) =>
          (session.server === undefined || endpoint.id === session.server) &&
          mcpAllowed(grants, endpoint.id, 'server'),
      )
      .map((endpoint) =>
        gateway.upstreams.call(session, endpoint, 'logging/setLevel', params, signal),
      ),
  )
}

/** Whether a server exists and the key may use something of it (else it is not found). */
function serverVisible(gateway: McpGateway, grants: McpGrants | undefined, server: string) {
  return gateway.endpoints.has(server) && mcpAllowed(grants, server, 'server')
}

/**
 * A notification or a response from the client. `notifications/cancelled` aborts the call when it
 * runs on this instance and goes on to the session's servers (which ignore ids they do not
 * know); a response to a server's request goes to the server its id names.
 */
async function deliver(
  gateway: McpGateway,
  session: McpSession,
  message: Exclude<JsonRpcMessage, { kind: 'request' }>,
  scope: AuthedScope,
): Promise<void> {
  const signal = AbortSignal.timeout(10_000)
  if (message.kind === 'response') {
    const id = message.id
    const colon = typeof id === 'string' ? id.indexOf(':') : -1
    const endpoint = colon > 0 ? gateway.endpoints.get((id as string).slice(0, colon)) : undefined
    const original = colon > 0 ? parseJson((id as string).slice(colon + 1)) : undefined
    // Only a server this key may use, and the session's own on `/mcp/{server}`: an id naming
    // another server must not make the gateway call it with its credentials.
    const allowed =
      endpoint !== undefined &&
      (session.server === undefined || session.server === endpoint.id) &&
      mcpAllowed(grantsOf(scope.key.mcp, scope.team?.mcp), endpoint.id, 'server')
    if (!allowed || original === undefined || !original.ok) {
      throw new GatewayError('invalid_request', 'The response answers no request of this session.')
    }
    scope.waitUntil(
      send(gateway, session, endpoint.id, { ...message.body, id: original.value }, signal),
    )
    return
  }
  if (message.method === 'notifications/initialized') return
  if (message.method === 'notifications/cancelled') {
    const requestId = message.params?.['requestId']
    gateway.calls
      .get(`${session.id} ${JSON.stringify(requestId)}`)
      ?.abort(new McpRpcError(rpcCodes.requestTimeout, 'cancelled'))
  }
  const body = {
    jsonrpc: '2.0',
    method: message.method,
    ...(message.params === undefined ? {} : { params: message.params }),
  }
  for (const server of session.upstream.keys()) {
    scope.waitUntil(send(gateway, session, server, body, signal))
  }
}

async function send(
  gateway: McpGateway,
  session: McpSession,
  server: string,
  body: Record<string, unknown>,
  signal: AbortSignal,
): Promise<void> {
  const endpoint = gateway.endpoints.get(server)
  if (endpoint === undefined) return
  try {
    for await (const _ of await gateway.upstreams.send(session, endpoint, body, signal)) void _
  } catch {
    // Notifications are best effort: a server that is gone misses them.
  }
}
