import { isJsonObject, parseJson, stringOf } from '../internal/json'
import { createSseReader } from '../sse/sse-reader'
import type { ChunkSource } from '../sse/chunk-source'
import { McpRpcError, rpcCodes } from './json-rpc'
import type { UpstreamAuth } from './upstream-auth'
import type { UpstreamTransport } from './upstream-channel'

/** What one POST to an upstream server answered. */
export type UpstreamReply = {
  /** The `Mcp-Session-Id` it answered with, if any. */
  sessionId: string | undefined
  /** Its JSON-RPC messages in order: one for a JSON body, each event of an SSE body, none for 202. */
  messages: AsyncIterable<Record<string, unknown>>
}

/** How to reach one upstream server over Streamable HTTP. */
export type UpstreamEndpoint = {
  id: string
  url: string
  auth: UpstreamAuth
  fetch: typeof fetch
  maxResponseBytes: number
  /** Another transport than Streamable HTTP (HTTP+SSE, stdio); absent: `postUpstream`. */
  transport?: UpstreamTransport | undefined
}

/** Thrown for an upstream session the server no longer knows (404): open a new one and retry. */
export class UpstreamSessionGone extends Error {}

/**
 * POSTs one JSON-RPC message to a Streamable HTTP server (MCP 2025-11-25 transport) and reads its
 * answer: 202 (nothing), a JSON body (one message), or an SSE stream (notifications and requests
 * of the server, then the response). The answer is bounded by `maxResponseBytes`; a failure is a
 * `McpRpcError` whose text is scrubbed of the server's credentials.
 */
export async function postUpstream(
  endpoint: UpstreamEndpoint,
  message: Record<string, unknown>,
  context: {
    sessionId?: string | undefined
    protocolVersion?: string | undefined
    signal: AbortSignal
  },
): Promise<UpstreamReply> {
  const auth = await endpoint.auth.headers().catch((error: unknown) => {
    throw failed(endpoint, `its credentials could not be obtained (${describe(error)})`)
  })
  const headers: Record<string, string> = {
    ...auth,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  }
  if (context.sessionId) headers['mcp-session-id'] = context.sessionId
  if (context.protocolVersion !== undefined) {
    headers['mcp-protocol-version'] = context.protocolVersion
  }
  let response: Response
  try {
    response = await endpoint.fetch(endpoint.url, {
      method: 'POST',
      headers,
      body: JSON.stringify(message),
      signal: context.signal,
    })
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason
    throw failed(endpoint, `it could not be reached (${describe(error)})`)
  }
  const sessionId = response.headers.get('mcp-session-id') ?? undefined
  if (response.status === 404 && context.sessionId) {
    await response.body?.cancel().catch(() => undefined)
    throw new UpstreamSessionGone(endpoint.id)
  }
  if (!response.ok) {
    if (response.status === 401) endpoint.auth.refused(auth)
    const text = await response.text().catch(() => '')
    throw failed(endpoint, `it answered HTTP ${response.status}: ${text.slice(0, 500)}`)
  }
  const type = response.headers.get('content-type') ?? ''
  const body = response.body
  if (response.status === 202 || body === null) {
    await body?.cancel().catch(() => undefined)
    return { sessionId, messages: none() }
  }
  const source = bounded(body.getReader(), endpoint)
  if (type.includes('text/event-stream'))
    return { sessionId, messages: sseMessages(source, endpoint) }
  return { sessionId, messages: jsonMessage(source, endpoint) }
}

async function* none(): AsyncIterable<Record<string, unknown>> {}

async function* jsonMessage(
  source: ChunkSource,
  endpoint: UpstreamEndpoint,
): AsyncIterable<Record<string, unknown>> {
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const chunk = await source.read()
    if (chunk.done) break
    text += decoder.decode(chunk.value as Uint8Array, { stream: true })
  }
  text += decoder.decode()
  if (text.trim() === '') return
  const parsed = parseJson(text)
  if (!parsed.ok || !isJsonObject(parsed.value)) {
    throw failed(endpoint, 'it answered a body that is not a JSON-RPC message')
  }
  yield parsed.value
}

async function* sseMessages(
  source: ChunkSource,
  endpoint: UpstreamEndpoint,
): AsyncIterable<Record<string, unknown>> {
  const reader = createSseReader(source, { maxBufferSize: endpoint.maxResponseBytes })
  try {
    for (;;) {
      const message = await reader.next()
      if (message === undefined) return
      if (message.type !== 'event' || message.data === '') continue
      const parsed = parseJson(message.data)
      if (parsed.ok && isJsonObject(parsed.value)) yield parsed.value
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

/** The body's reader, failing once more than `maxResponseBytes` have come. */
function bounded(reader: ReadableStreamDefaultReader<Uint8Array>, endpoint: UpstreamEndpoint) {
  let total = 0
  return {
    async read() {
      const chunk = await reader.read().catch((error: unknown) => {
        throw isRpc(error) ? error : failed(endpoint, `its answer was cut (${describe(error)})`)
      })
      if (!chunk.done) {
        total += chunk.value.byteLength
        if (total > endpoint.maxResponseBytes) {
          await reader.cancel().catch(() => undefined)
          throw new McpRpcError(
            rpcCodes.tooLarge,
            `The answer of MCP server "${endpoint.id}" exceeds ${endpoint.maxResponseBytes} bytes (mcp.maxResponseBytes).`,
          )
        }
      }
      return chunk
    },
    cancel: (reason?: unknown) => reader.cancel(reason),
  } satisfies ChunkSource
}

function isRpc(error: unknown): error is McpRpcError {
  return error instanceof McpRpcError
}

/** An upstream failure as the client sees it: a JSON-RPC error, the server's secrets scrubbed. */
export function failed(endpoint: UpstreamEndpoint, why: string): McpRpcError {
  return new McpRpcError(
    rpcCodes.upstreamFailed,
    endpoint.auth.scrub(`MCP server "${endpoint.id}" failed: ${why}`),
  )
}

/** A thrown value's text: an error's message, anything else as JSON. */
function describe(error: unknown): string {
  return error instanceof Error ? error.message : stringOf(error)
}
