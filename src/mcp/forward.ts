import { GatewayError } from '../errors'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { jsonAnswer, type GatewayAnswer } from '../http/gateway-answer'
import { isJsonObject, stringOf } from '../internal/json'
import { admit } from '../relay/admit'
import { requestSubjects } from '../relay/request-subjects'
import type { Reservation } from '../usage/usage-meter'
import { createPushStream, sseEvent } from './answer-stream'
import { recordToolCall, type ToolCallFacts } from './call-records'
import { errorResponse, McpRpcError, rpcCodes, type JsonRpcId, type RpcError } from './json-rpc'
import type { McpGateway } from './mcp-gateway'
import type { McpSession } from './session-store'
import type { UpstreamEndpoint } from './upstream-http'

/** A client request bound for one server, its params already in the server's names. */
export type Forwarded = {
  id: JsonRpcId
  method: string
  params: Record<string, unknown>
  endpoint: UpstreamEndpoint
  /** Set for `tools/call`: the call is admitted, bounded and recorded. */
  tool?: ToolCallFacts | undefined
  /** Rewrites the result into the client's names (resource URIs). */
  mapResult?: ((result: Record<string, unknown>) => Record<string, unknown>) | undefined
}

/**
 * Forwards one request to its server and relays what comes back: as SSE when the client accepts
 * it (the server's progress and logging notifications and its sampling and elicitation requests,
 * their ids prefixed with the server, then the response), else the response alone as JSON. A tool
 * call is admitted first — the key's requests per minute and concurrency, and the calls in flight
 * per key on this instance — bounded by `mcp.callTimeoutMs`, and recorded once it ends. Every
 * failure is a JSON-RPC error answer.
 */
export async function forward(
  gateway: McpGateway,
  runtime: GatewayRuntime,
  scope: AuthedScope,
  session: McpSession,
  request: Forwarded,
  sse: boolean,
): Promise<GatewayAnswer> {
  const keyId = scope.key.id
  const tool = request.tool
  let reservation: Reservation | undefined
  if (tool !== undefined) {
    const held = gateway.inFlight.get(keyId) ?? 0
    if (held >= gateway.config.maxCallsInFlight) {
      return rpcAnswer(request.id, {
        code: rpcCodes.limited,
        message: `This key has ${held} tool calls in flight (mcp.maxCallsInFlight); retry when one ends.`,
      })
    }
    try {
      const subjects = requestSubjects(runtime, scope, scope.key)
      const admission = await admit(runtime, scope, scope.key, {
        estimatedTokens: 0,
        estimate: { inputTokens: 0, outputTokens: 0 },
        ...(subjects === undefined ? {} : { subjects }),
      })
      reservation = admission.reservation
    } catch (error) {
      const message = error instanceof GatewayError ? error.message : 'The call was refused.'
      return rpcAnswer(request.id, { code: rpcCodes.limited, message })
    }
    gateway.inFlight.set(keyId, held + 1)
    scope.event.group = 'mcp'
    scope.event.provider = tool.server
    scope.event.model = `${tool.server}__${tool.tool}`
    scope.event.upstreamModel = tool.tool
  }
  const controller = new AbortController()
  const callKey = `${session.id} ${JSON.stringify(request.id)}`
  gateway.calls.set(callKey, controller)
  const timer = setTimeout(
    () =>
      controller.abort(
        new McpRpcError(
          rpcCodes.requestTimeout,
          `The call took longer than ${gateway.config.callTimeoutMs} ms (mcp.callTimeoutMs).`,
        ),
      ),
    gateway.config.callTimeoutMs,
  )
  const onClientGone = () => controller.abort(new McpRpcError(rpcCodes.requestTimeout, 'cancelled'))
  scope.request.signal.addEventListener('abort', onClientGone, { once: true })
  const span =
    tool === undefined
      ? undefined
      : scope.trace?.startTool?.({ ...tool, callId: String(request.id) })
  let finished = false
  const finish = (outcome: 'ok' | 'error' | 'aborted', error?: RpcError) => {
    if (finished) return
    finished = true
    clearTimeout(timer)
    gateway.calls.delete(callKey)
    scope.request.signal.removeEventListener('abort', onClientGone)
    if (tool !== undefined && reservation !== undefined) {
      const left = (gateway.inFlight.get(keyId) ?? 1) - 1
      if (left <= 0) gateway.inFlight.delete(keyId)
      else gateway.inFlight.set(keyId, left)
      span?.end({ ...(error === undefined ? {} : { error: String(error.code) }) })
      recordToolCall(runtime, scope, tool, reservation, {
        outcome,
        ...(error === undefined ? {} : { error: { code: error.code, message: error.message } }),
      })
    }
    scope.complete(200, outcome)
  }

  /** Relays the server's messages; resolves with the response, or an error. */
  async function relay(push: (message: unknown) => void): Promise<Record<string, unknown>> {
    const message = {
      jsonrpc: '2.0',
      id: request.id,
      method: request.method,
      params: request.params,
    }
    const replies = await gateway.upstreams.send(
      session,
      request.endpoint,
      message,
      controller.signal,
    )
    for await (const reply of replies) {
      const method = reply['method']
      if (typeof method === 'string') {
        const id = reply['id']
        // A server's request goes to the client with the server in its id, so that the client's
        // answer (which may reach another instance) finds its way back.
        push(
          id === undefined
            ? reply
            : { ...reply, id: `${request.endpoint.id}:${JSON.stringify(id)}` },
        )
        continue
      }
      if (reply['id'] !== request.id) continue
      const error = reply['error']
      if (isJsonObject(error)) {
        return errorResponse(request.id, {
          code: typeof error['code'] === 'number' ? error['code'] : rpcCodes.upstreamFailed,
          message: request.endpoint.auth.scrub(stringOf(error['message'] ?? 'error')),
          ...(error['data'] === undefined ? {} : { data: error['data'] }),
        })
      }
      const result = isJsonObject(reply['result']) ? reply['result'] : {}
      return { jsonrpc: '2.0', id: request.id, result: request.mapResult?.(result) ?? result }
    }
    throw new McpRpcError(
      rpcCodes.upstreamFailed,
      `MCP server "${request.endpoint.id}" ended its answer without a response.`,
    )
  }

  const settle = (response: Record<string, unknown>) => {
    const error = response['error'] as RpcError | undefined
    const isError =
      error !== undefined ||
      (isJsonObject(response['result']) && response['result']['isError'] === true)
    finish(isError ? 'error' : 'ok', error)
  }
  const failure = (thrown: unknown): { response?: Record<string, unknown>; error: RpcError } => {
    const reason = controller.signal.aborted ? controller.signal.reason : thrown
    const error: RpcError =
      reason instanceof McpRpcError
        ? { code: reason.code, message: reason.message }
        : { code: rpcCodes.upstreamFailed, message: `MCP server "${request.endpoint.id}" failed.` }
    return { error }
  }

  if (!sse) {
    try {
      const response = await relay(() => undefined)
      settle(response)
      return jsonAnswer(response)
    } catch (thrown) {
      const { error } = failure(thrown)
      finish(error.message === 'cancelled' ? 'aborted' : 'error', error)
      return jsonAnswer(errorResponse(request.id, error))
    }
  }
  const stream = createPushStream(() =>
    controller.abort(new McpRpcError(rpcCodes.requestTimeout, 'cancelled')),
  )
  scope.eventDeferred = true
  void relay((message) => stream.push(sseEvent(message))).then(
    (response) => {
      stream.push(sseEvent(response))
      stream.end()
      settle(response)
    },
    (thrown: unknown) => {
      const { error } = failure(thrown)
      // A cancelled request gets no response (MCP: the receiver does not answer it).
      if (error.message === 'cancelled') finish('aborted', error)
      else {
        stream.push(sseEvent(errorResponse(request.id, error)))
        finish('error', error)
      }
      stream.end()
    },
  )
  return {
    status: 200,
    headers: new Map([
      ['content-type', 'text/event-stream'],
      ['cache-control', 'no-cache'],
      ['mcp-session-id', session.id],
    ]),
    body: stream,
  }
}

/** A JSON-RPC error answer (HTTP 200: the request was delivered, the call failed). */
export function rpcAnswer(id: JsonRpcId | null, error: RpcError): GatewayAnswer {
  return jsonAnswer(errorResponse(id, error))
}
