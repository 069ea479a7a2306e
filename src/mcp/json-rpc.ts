import { isJsonObject } from '../internal/json'

/** A JSON-RPC id: a string or a number (MCP forbids null on requests). */
export type JsonRpcId = string | number

/** A JSON-RPC message as the gateway reads it: a request, a notification or a response. */
export type JsonRpcMessage =
  | { kind: 'request'; id: JsonRpcId; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'notification'; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'response'; id: JsonRpcId; body: Record<string, unknown> }

/** The JSON-RPC and MCP error codes the gateway answers with. */
export const rpcCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Server-defined range: a limit, a refusal, an upstream that failed. */
  requestTimeout: -32001,
  limited: -32002,
  upstreamFailed: -32003,
  unauthorized: -32004,
  tooLarge: -32005,
} as const

/** A JSON-RPC error object. */
export type RpcError = { code: number; message: string; data?: unknown }

/** An error the gateway answers a request with, in JSON-RPC's shape. */
export class McpRpcError extends Error {
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.name = 'McpRpcError'
    this.code = code
  }
}

/** A JSON-RPC error response. */
export function errorResponse(id: JsonRpcId | null, error: RpcError): Record<string, unknown> {
  return { jsonrpc: '2.0', id, error }
}

/** A JSON-RPC result response. */
export function resultResponse(id: JsonRpcId, result: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id, result }
}

/**
 * Reads one parsed JSON value as a JSON-RPC 2.0 message, or says why it is not one (the text of
 * an `Invalid Request` error). Batches are refused: MCP removed them in 2025-06-18.
 */
export function readMessage(value: unknown): JsonRpcMessage | { invalid: string } {
  if (Array.isArray(value)) return { invalid: 'JSON-RPC batches are not supported.' }
  if (!isJsonObject(value)) return { invalid: 'Expected a JSON-RPC object.' }
  if (value['jsonrpc'] !== '2.0') return { invalid: 'Expected "jsonrpc": "2.0".' }
  const id = value['id']
  const method = value['method']
  const params = value['params']
  if (params !== undefined && !isJsonObject(params)) {
    return { invalid: '"params" must be an object.' }
  }
  if (typeof method === 'string') {
    if (method.length === 0 || method.length > 256) return { invalid: 'Invalid "method".' }
    if (id === undefined) return { kind: 'notification', method, params }
    if (!isId(id)) return { invalid: '"id" must be a string or an integer.' }
    return { kind: 'request', id, method, params }
  }
  if (method !== undefined) return { invalid: '"method" must be a string.' }
  if (!isId(id)) return { invalid: 'Expected a request, a notification or a response.' }
  const hasResult = 'result' in value
  const error = value['error']
  if (hasResult === (error !== undefined)) {
    return { invalid: 'A response has exactly one of "result" and "error".' }
  }
  if (error !== undefined && !(isJsonObject(error) && Number.isInteger(error['code']))) {
    return { invalid: '"error" must be an object with an integer "code".' }
  }
  return { kind: 'response', id, body: value }
}

function isId(id: unknown): id is JsonRpcId {
  return (typeof id === 'string' && id.length <= 256) || Number.isSafeInteger(id)
}
