import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import type { GatewayFetch } from '../gateway'

/** A Node `http` request listener that is also Express middleware. */
export type NodeHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  next?: (error?: unknown) => void,
) => void

/**
 * Adapts the gateway to `http.createServer` and Express.
 *
 * - The URL comes from Express's `originalUrl` when present, so `app.use('/v1', …)` sees `/v1/…`.
 * - The `Request`'s signal aborts when the client's socket closes, which aborts the upstream call.
 * - The response streams with backpressure: a slow client slows the upstream read, and a client
 *   that leaves cancels the body, which records the usage seen so far as `aborted`.
 * - A body already parsed by `express.json()` is used as it is; mount the gateway before body
 *   parsers to keep the client's bytes.
 *
 * @example
 * http.createServer(toNodeHandler(createGateway(config))).listen(8787)
 * app.use('/v1', toNodeHandler(gateway))
 */
export function toNodeHandler(handler: GatewayFetch): NodeHandler {
  return (request, response, next) => {
    serve(handler, request, response).catch((error: unknown) => {
      if (next !== undefined && !response.headersSent) {
        next(error)
        return
      }
      if (!response.headersSent) {
        response.statusCode = 500
        response.end()
      } else {
        response.destroy(error instanceof Error ? error : undefined)
      }
    })
  }
}

async function serve(
  handler: GatewayFetch,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const controller = new AbortController()
  response.once('close', () => {
    if (!response.writableFinished) controller.abort()
  })
  const webResponse = await handler(toWebRequest(request, controller.signal))
  await writeWebResponse(webResponse, response, controller.signal, request.method === 'HEAD')
}

type ExpressRequest = IncomingMessage & { originalUrl?: string; body?: unknown }

function toWebRequest(request: ExpressRequest, signal: AbortSignal): Request {
  const secure = 'encrypted' in request.socket && request.socket.encrypted === true
  const host = request.headers.host ?? 'localhost'
  const url = new URL(
    request.originalUrl ?? request.url ?? '/',
    `${secure ? 'https' : 'http'}://${host}`,
  )
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name.startsWith(':')) continue
    headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  const method = request.method ?? 'GET'
  if (method === 'GET' || method === 'HEAD') return new Request(url, { method, headers, signal })
  return new Request(url, {
    method,
    headers,
    signal,
    body: bodyOf(request, headers),
    // Required by Node's fetch for a streamed request body.
    duplex: 'half',
  } as RequestInit)
}

function bodyOf(request: ExpressRequest, headers: Headers): BodyInit {
  const parsed = request.body
  if (parsed === undefined || request.readableEnded === false) {
    return Readable.toWeb(request) as ReadableStream<Uint8Array>
  }
  // A body parser ran first and consumed the stream.
  headers.delete('content-length')
  if (typeof parsed === 'string' || parsed instanceof Uint8Array) return parsed as BodyInit
  return JSON.stringify(parsed)
}

async function writeWebResponse(
  source: Response,
  response: ServerResponse,
  signal: AbortSignal,
  headOnly: boolean,
): Promise<void> {
  response.statusCode = source.status
  source.headers.forEach((value, name) => {
    if (name !== 'set-cookie') response.setHeader(name, value)
  })
  const cookies = source.headers.getSetCookie()
  if (cookies.length > 0) response.setHeader('set-cookie', cookies)
  if (source.body === null || headOnly) {
    await source.body?.cancel()
    response.end()
    return
  }
  response.flushHeaders()
  const reader = source.body.getReader()
  const onAbort = () => {
    reader.cancel().catch(() => undefined)
  }
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (!response.write(value)) await drained(response, signal)
      if (signal.aborted) return
    }
    response.end()
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

function drained(response: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done)
      signal.removeEventListener('abort', done)
      resolve()
    }
    response.on('drain', done)
    signal.addEventListener('abort', done, { once: true })
  })
}
