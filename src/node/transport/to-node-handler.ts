import type { IncomingMessage, ServerResponse } from 'node:http'
import type { GatewayFetch } from '../../gateway'
import { coreOf, type GatewayCore } from '../../gateway-core'
import { nodeHashKey } from './node-hash-key'
import { ClientGone, toGatewayRequest, toWebRequest } from './node-request'
import { writeAnswer } from './write-answer'

/** A handler mounted under a path of its own, such as the console of `model-gateway/console`. */
export type MountedHandler = ((request: Request, context?: object) => Promise<Response>) & {
  /** Whether a request path is this handler's. */
  handles(pathname: string): boolean
}

/** The path of a request target (`/v1/models?x` → `/v1/models`). */
function pathOf(target: string): string {
  const end = target.search(/[?#]/)
  return end < 0 ? target : target.slice(0, end)
}

/** A Node `http` request listener that is also Express middleware. */
export type NodeHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  next?: (error?: unknown) => void,
) => void

/**
 * Adapts the gateway to `http.createServer` and Express.
 *
 * A gateway built by `createGateway` is served without WHATWG objects (ADR 0013): the request is
 * read from Node as it is, and the answer written with as few socket writes as Node allows (a JSON
 * answer in one, with its `content-length`). Any other `(Request) => Response` handler is bridged
 * through `Request` and `Response`.
 *
 * - The URL comes from Express's `originalUrl` when present, so `app.use('/v1', …)` sees `/v1/…`.
 *   A malformed `Host` gets a 400 from the gateway in the route's protocol shape, never a 500.
 * - The `Request`'s signal aborts when the client's socket closes, which aborts the upstream call.
 * - The response streams with backpressure: a slow client slows the upstream read, and a client
 *   that leaves cancels the body, which records the usage seen so far as `aborted`.
 * - An answer given before the request body was read in full (a 413, a 401, a 503 at capacity)
 *   closes the connection (`connection: close`), so the rest of an upload is never read.
 * - A body already parsed by `express.json()` is used as it is; mount the gateway before body
 *   parsers to keep the client's bytes.
 * - Keys are hashed with `node:crypto`, synchronously, unless the config names its own `hashKey`.
 * - Any other handler (the console) gets `{ remoteAddress }`, the socket's, as its second argument.
 * - With `console` (`createConsole(gateway)`), requests under its path go to it, the rest to the
 *   gateway, which keeps its fast path.
 *
 * @example
 * http.createServer(toNodeHandler(createGateway(config))).listen(8787)
 * http.createServer(toNodeHandler(gateway, { console: createConsole(gateway) })).listen(8787)
 * app.use('/v1', toNodeHandler(gateway))
 */
export function toNodeHandler(
  handler: GatewayFetch,
  options: { console?: MountedHandler | undefined } = {},
): NodeHandler {
  const mounted = options.console
  if (mounted !== undefined) {
    const toGateway = toNodeHandler(handler)
    const toMounted = toNodeHandler(mounted)
    return (request, response, next) => {
      if (mounted.handles(pathOf(request.url ?? '/'))) toMounted(request, response, next)
      else toGateway(request, response, next)
    }
  }
  const core = coreOf(handler)
  core?.preferKeyHash(nodeHashKey)
  return (request, response, next) => {
    const served =
      core === undefined ? serve(handler, request, response) : serveCore(core, request, response)
    served.catch((error: unknown) => {
      // The gateway answers every failure itself; this is a failure of the bridge.
      if (next !== undefined && !response.headersSent) {
        next(error)
        return
      }
      console.error('[model-gateway] the Node bridge failed:', error)
      if (!response.headersSent) {
        response.statusCode = 500
        response.setHeader('connection', 'close')
        response.end()
      } else {
        response.destroy(error instanceof Error ? error : undefined)
      }
    })
  }
}

async function serveCore(
  core: GatewayCore,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const gone = new ClientGone()
  response.once('close', () => {
    if (!response.writableFinished) gone.fire()
  })
  const answer = await core.handle(toGatewayRequest(request, gone))
  // The rest of a body the gateway did not read would only hold the connection: close it once the
  // answer is written, rather than read (or stall on) what may be hundreds of megabytes.
  await writeAnswer(answer, response, request.method === 'HEAD', !request.complete)
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
  // The socket's address, for handlers that limit by client (the console's sign-in limiter).
  const webResponse = await handler(toWebRequest(request, controller.signal), {
    remoteAddress: request.socket.remoteAddress,
  })
  // The rest of a body the gateway did not read would only hold the connection: close it once the
  // answer is written, rather than read (or stall on) what may be hundreds of megabytes.
  if (!request.complete) response.setHeader('connection', 'close')
  await writeWebResponse(webResponse, response, controller.signal, request.method === 'HEAD')
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
