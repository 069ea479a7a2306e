import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { rpcCodes } from './json-rpc'
import { settleRetries } from '../usage/settle-retries'
import type { Reservation, UsageRecord } from '../usage/usage-meter'

/** A tool call's identity, as its records name it. */
export type ToolCallFacts = {
  server: string
  tool: string
  /** The JSON-RPC id of the call: the span's `gen_ai.tool.call.id`. */
  callId: string
}

/** The usage of a request of the MCP gateway: no tokens. */
export const zeroUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteInputTokens: 0,
  cacheWrite1hInputTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
}

/**
 * How a tool call ended, as its records tell it:
 * - `ok`: the tool answered;
 * - `tool_error`: the call worked and the tool said it failed (a result with `isError: true`);
 * - `error`: the call itself failed — a JSON-RPC error from the server, the server unreachable or
 *   broken, the call timed out (`error` holds the JSON-RPC error the client got);
 * - `aborted`: the client cancelled it.
 */
export type ToolCallEnd =
  | { outcome: 'ok' | 'tool_error' }
  | { outcome: 'error' | 'aborted'; error: { code: number; message: string } }

/** The event's and span's error code of a tool-level failure (OTel's MCP conventions' value). */
export const toolErrorCode = 'tool_error'

/**
 * The status a tool call's ledger row carries: what the call would have been answered had it been
 * a plain HTTP request (the client's HTTP answer is 200 in every case: JSON-RPC puts failures in
 * the body). 200 when the tool answered, `isError` included; 499 when the client cancelled; 504
 * when it timed out; 400 when the server refused the request as malformed (a JSON-RPC parse,
 * request, method or params error); 502 for every other failure of the server (an error answer,
 * a non-2xx HTTP status, unreachable, an answer cut or without a response).
 */
export function toolCallStatus(end: ToolCallEnd): number {
  switch (end.outcome) {
    case 'ok':
    case 'tool_error':
      return 200
    case 'aborted':
      return 499
    case 'error': {
      const code = end.error.code
      if (code === rpcCodes.requestTimeout) return 504
      if (code === rpcCodes.limited) return 429
      if (
        code === rpcCodes.parseError ||
        code === rpcCodes.invalidRequest ||
        code === rpcCodes.methodNotFound ||
        code === rpcCodes.invalidParams
      ) {
        return 400
      }
      return 502
    }
  }
}

/**
 * Writes a finished tool call's records: the request event's fields (the event itself is emitted
 * when the answer is complete: one per call, and the CLI's log line of it, key masked), the
 * settle of its reservation (the key's requests per minute and concurrency), and the ledger row
 * (`kind: 'tool'`, its status `toolCallStatus`). Arguments and results are in none of them.
 */
export function recordToolCall(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  facts: ToolCallFacts,
  reservation: Reservation,
  end: ToolCallEnd,
): void {
  const durationMs = runtime.now() - scope.startedAt
  const record: UsageRecord = {
    requestId: scope.requestId,
    keyId: scope.key.id,
    team: scope.team?.id,
    endUser: scope.endUser,
    groupId: 'mcp',
    providerId: facts.server,
    model: `${facts.server}__${facts.tool}`,
    upstreamModel: facts.tool,
    route: 'mcp.tools.call',
    stream: false,
    usage: zeroUsage,
    // A tool-level failure is a failed call for the reports (their error count); its status, 200,
    // tells it apart from a call that failed (4xx/5xx).
    outcome: end.outcome === 'tool_error' ? 'error' : end.outcome,
    status: toolCallStatus(end),
    startedAt: scope.startedAt,
    durationMs,
    kind: 'tool',
  }
  if (end.outcome === 'tool_error') {
    scope.event.error = {
      code: toolErrorCode,
      message: 'The tool reported an error (isError).',
    }
  } else if (end.outcome === 'error' || end.outcome === 'aborted') {
    scope.event.error = { code: String(end.error.code), message: end.error.message }
  }
  const failed = (error: unknown) => console.error('[model-gateway] MCP settle failed:', error)
  const settled = Promise.resolve()
    .then(() => runtime.meter.settle(reservation, record))
    .then((result: unknown) => settleRetries(result, () => undefined, failed), failed)
    .then(() => {
      try {
        runtime.ledger?.record(record)
      } catch (error) {
        console.error('[model-gateway] usage ledger failed to take a record:', error)
      }
    })
  scope.waitUntil(settled)
}
