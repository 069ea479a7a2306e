import { GatewayError } from '../errors'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { jsonAnswer, type GatewayAnswer } from '../http/gateway-answer'
import { isJsonObject, parseJson, stringOf } from '../internal/json'
import type { Reservation } from '../usage/usage-meter'
import { createPushStream, sseEvent } from './answer-stream'
import {
  recordToolCall,
  toolCallStatus,
  toolErrorCode,
  type ToolCallEnd,
  type ToolCallFacts,
} from './call-records'
import { errorResponse, McpRpcError, rpcCodes, type JsonRpcId, type RpcError } from './json-rpc'
import type { McpGateway } from './mcp-gateway'
import { admitMcpRequest, settleMcpRequest } from './request-admission'
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
 * their ids prefixed with the server, then the response), else the response alone as JSON. Every
 * request is admitted first against the key's requests per minute and concurrency (a refusal: 429);
 * a tool call also against the calls in flight per key on this instance (a refusal of either: a
 * JSON-RPC error), and is recorded once it ends. Bounded by `mcp.callTimeoutMs`; every failure of
 * the call is a JSON-RPC error answer.
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
  const callKey = `${session.id} ${JSON.stringify(request.id)}`
  // A second call under an id still in flight would take over the first one's cancellation.
  if (gateway.calls.has(callKey)) {
    return rpcAnswer(request.id, {
      code: rpcCodes.invalidRequest,
      message: 'A request with this id is still in flight in this session.',
    })
  }
  if (tool !== undefined) {
    const held = gateway.inFlight.get(keyId) ?? 0
    if (held >= gateway.config.maxCallsInFlight) {
      return rpcAnswer(request.id, {
        code: rpcCodes.limited,
        message: `This key has ${held} tool calls in flight (mcp.maxCallsInFlight); retry when one ends.`,
      })
    }
    // Counted before the admission's await, so calls that overlap it see each other.
    gateway.inFlight.set(keyId, held + 1)
    try {
      reservation = await admitMcpRequest(runtime, scope)
    } catch (error) {
      releaseInFlight(gateway, keyId)
      const message = error instanceof GatewayError ? error.message : 'The call was refused.'
      return rpcAnswer(request.id, { code: rpcCodes.limited, message })
    }
    scope.event.group = 'mcp'
    scope.event.provider = tool.server
    scope.event.model = `${tool.server}__${tool.tool}`
    scope.event.upstreamModel = tool.tool
  } else {
    // A prompt or a resource: the key's requests per minute and concurrency too. A refusal is
    // the meter's 429, as for the lists.
    reservation = await admitMcpRequest(runtime, scope)
  }
  const controller = new AbortController()
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
  /** Ends the call once: `error` is the JSON-RPC error the client got (`error`, `aborted`). */
  const finish = (outcome: 'ok' | 'tool_error' | 'error' | 'aborted', error?: RpcError) => {
    if (finished) return
    finished = true
    clearTimeout(timer)
    gateway.calls.delete(callKey)
    scope.request.signal.removeEventListener('abort', onClientGone)
    const failure = error ?? { code: rpcCodes.internalError, message: 'The call failed.' }
    const end: ToolCallEnd =
      outcome === 'ok' || outcome === 'tool_error'
        ? { outcome }
        : { outcome, error: { code: failure.code, message: failure.message } }
    if (tool !== undefined && reservation !== undefined) {
      releaseInFlight(gateway, keyId)
      span?.end(
        outcome === 'ok'
          ? {}
          : { error: outcome === 'tool_error' ? toolErrorCode : String(failure.code) },
      )
      recordToolCall(runtime, scope, tool, reservation, end)
    } else if (reservation !== undefined) {
      void settleMcpRequest(
        runtime,
        scope,
        reservation,
        request.method,
        request.endpoint.id,
        toolCallStatus(end),
      )
    }
    // The client's HTTP status: 200 whatever the call's fate (JSON-RPC carries it in the body).
    scope.complete(200, outcome === 'tool_error' ? 'error' : outcome)
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
        const clean = scrubJson(reply, request.endpoint.auth.scrub)
        push(
          id === undefined
            ? clean
            : { ...clean, id: `${request.endpoint.id}:${JSON.stringify(id)}` },
        )
        continue
      }
      if (reply['id'] !== request.id) continue
      const error = reply['error']
      if (isJsonObject(error)) {
        return errorResponse(request.id, {
          code: typeof error['code'] === 'number' ? error['code'] : rpcCodes.upstreamFailed,
          message: request.endpoint.auth.scrub(stringOf(error['message'] ?? 'error')),
          ...(error['data'] === undefined
            ? {}
            : { data: scrubJson(error['data'], request.endpoint.auth.scrub) }),
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
    if (error !== undefined) finish('error', error)
    else if (isJsonObject(response['result']) && response['result']['isError'] === true) {
      finish('tool_error')
    } else finish('ok')
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

/** Gives back a key's in-flight slot. */
function releaseInFlight(gateway: McpGateway, keyId: string): void {
  const left = (gateway.inFlight.get(keyId) ?? 1) - 1
  if (left <= 0) gateway.inFlight.delete(keyId)
  else gateway.inFlight.set(keyId, left)
}

/**
 * A server's message or error data with the server's credentials scrubbed from its text: a server
 * that echoes its token in a log notification or an error's `data` must not hand it to the
 * client. Unchanged values are returned as they are; a value that no longer parses is dropped.
 */
function scrubJson<T>(value: T, scrub: (text: string) => string): T | Record<string, never> {
  const text = JSON.stringify(value)
  if (text === undefined) return value
  const clean = scrub(text)
  if (clean === text) return value
  const parsed = parseJson(clean)
  return parsed.ok ? (parsed.value as T) : {}
}
