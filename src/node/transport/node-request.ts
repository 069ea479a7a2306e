import type { IncomingMessage } from 'node:http'
import { tooLarge } from '../../http/read-body'
import type { ClientSignal, GatewayRequest, RequestHeaders } from '../../http/gateway-request'
import { ClientGoneError } from '../../upstream/classify-failure'

/** A Node request as Express hands it over: `originalUrl` under a mount, `body` once parsed. */
export type ExpressRequest = IncomingMessage & { originalUrl?: string; body?: unknown }

/**
 * A `Host` the URL parser takes as it is: a registered name or IPv4 address (letters, digits,
 * `-`, `.`, `_`, `~`) or a bracketed IPv6 literal, with an optional port. Anything else (spaces,
 * `/`, `@`, `?`, `%`, non-ASCII) would fail to parse or, worse, move part of the URL into the
 * path or the user info.
 */
const validHost = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

/**
 * What the URL of a request with a malformed `Host` is set to: `[malformed-host]` is an IPv6
 * literal that never parses, so the gateway answers 400 in the shape of the route the path names,
 * and reads the path from what follows it.
 */
const malformedAuthority = '[malformed-host]'

/** Methods the `Request` constructor refuses; the gateway answers them 404 or 405. */
const forbiddenMethods = new Set(['CONNECT', 'TRACE', 'TRACK'])

/** Bytes of request body queued before the socket is paused: backpressure reaches the client. */
const highWaterMarkBytes = 64 * 1024

/**
 * The WHATWG `Request` for a Node request. It never throws: a request whose URL cannot be built
 * (a malformed `Host`) or that the `Request` constructor refuses (a `TRACE`) becomes a stand-in
 * with no body, carrying the real method and a URL the gateway can still route by, so that it
 * answers 400, 404 or 405 in the route's protocol shape rather than the bridge answering a bare
 * 500.
 */
export function toWebRequest(request: ExpressRequest, signal: AbortSignal): Request {
  const url = requestUrl(request)
  const method = request.method ?? 'GET'
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name.startsWith(':')) continue
    try {
      headers.set(name, Array.isArray(value) ? value.join(', ') : value)
    } catch {
      // A name or value fetch refuses (Node's parser lets a few through): the header is dropped.
    }
  }
  if (!forbiddenMethods.has(method.toUpperCase())) {
    try {
      if (method === 'GET' || method === 'HEAD')
        return new Request(url, { method, headers, signal })
      return new Request(url, {
        method,
        headers,
        signal,
        body: bodyOf(request, headers),
        // Required by Node's fetch for a streamed request body.
        duplex: 'half',
      } as RequestInit)
    } catch {
      // The URL does not parse after all (a port past 65535): answered as a malformed Host.
      return standIn(malformedUrl(request), method, headers, signal)
    }
  }
  return standIn(url, method, headers, signal)
}

/**
 * The request as the gateway reads it, straight from Node: no `Headers`, no `Request`, no web
 * stream, no `AbortSignal` (`signal` is a `ClientGone` the adapter fires when the client leaves).
 * The URL is built as `toWebRequest` builds it, so a malformed `Host` is answered 400 in the
 * route's shape; a method `fetch` refuses is routed like any other (404 or 405).
 */
export function toGatewayRequest(request: ExpressRequest, signal: ClientGone): GatewayRequest {
  return {
    method: request.method ?? 'GET',
    url: requestUrl(request),
    headers: nodeRequestHeaders(request),
    signal,
    text: (maxBytes) => readNodeBody(request, maxBytes),
  }
}

/**
 * The client's departure as the gateway listens for it: the one listener an upstream exchange
 * adds, without an `EventTarget`.
 */
export class ClientGone implements ClientSignal {
  aborted = false
  private listeners: Array<() => void> = []

  addEventListener(_type: 'abort', listener: () => void): void {
    this.listeners.push(listener)
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners.indexOf(listener)
    if (index >= 0) this.listeners.splice(index, 1)
  }

  /** The client left: every listener hears it, once. */
  fire(): void {
    if (this.aborted) return
    this.aborted = true
    const listeners = this.listeners
    this.listeners = []
    for (const listener of listeners) listener()
  }
}

/** Node's header record read by name, as `Headers` reads it (repeated values joined). */
function nodeRequestHeaders(request: IncomingMessage): RequestHeaders {
  const headers = request.headers
  const get = (name: string): string | null => {
    const value = headers[name.toLowerCase()]
    if (value === undefined) return null
    return Array.isArray(value) ? value.join(', ') : value
  }
  return { get, has: (name) => get(name) !== null }
}

/**
 * The body as text, refused with 413 past `maxBytes`: by its `content-length` before reading
 * anything, else as soon as it passes. The socket is paused then, not destroyed, so the 413 can
 * still be written (with `connection: close`). A body an Express parser already read is used.
 */
function readNodeBody(request: ExpressRequest, maxBytes: number): Promise<string> {
  const parsed = request.body
  if (parsed !== undefined && request.readableEnded !== false) {
    if (typeof parsed === 'string') return Promise.resolve(parsed)
    if (parsed instanceof Uint8Array) return Promise.resolve(new TextDecoder().decode(parsed))
    return Promise.resolve(JSON.stringify(parsed) ?? '')
  }
  const declared = Number(request.headers['content-length'] ?? Number.NaN)
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge(maxBytes))
  // The body is read after the key is checked, so the client may have gone meanwhile: a request
  // destroyed before its body was read emits neither 'end' nor 'close' again, and waiting for
  // them would never settle (the request hung, and its usage was never recorded).
  if (request.destroyed && request.readableEnded !== true) {
    return Promise.reject(new ClientGoneError())
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let received = 0
    const done = () => {
      request.off('data', onData)
      request.off('end', onEnd)
      request.off('close', onClose)
    }
    const onData = (chunk: Buffer) => {
      received += chunk.byteLength
      if (received > maxBytes) {
        done()
        request.pause()
        reject(tooLarge(maxBytes))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      done()
      // One decode of the whole body, as `Request.text()` decodes (a leading BOM is dropped).
      resolve(new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)))
    }
    const onClose = () => {
      // 'close' follows 'end' too; before it, the client went away mid-body.
      done()
      reject(new ClientGoneError())
    }
    request.on('data', onData)
    request.once('end', onEnd)
    request.once('close', onClose)
  })
}

/**
 * The request's absolute URL: the scheme, the `Host` and the request target concatenated (not
 * resolved, so a target such as `//x/v1/models` stays a path), or a URL that never parses when the
 * `Host` is malformed. The target is Express's `originalUrl` when present, so that
 * `app.use('/v1', …)` sees `/v1/…`.
 */
function requestUrl(request: ExpressRequest): string {
  const target = targetOf(request)
  if (!target.startsWith('/')) {
    // The absolute form a proxy sends (its authority wins over Host, RFC 9112 §3.2.2), or `*`.
    try {
      return new URL(target, `${schemeOf(request)}://localhost`).href
    } catch {
      return malformedUrl(request)
    }
  }
  const host = request.headers.host
  // HTTP/1.0 has no Host; Node refuses an HTTP/1.1 request without one before it gets here.
  if (host === undefined) return `${schemeOf(request)}://localhost${target}`
  return validHost.test(host) ? `${schemeOf(request)}://${host}${target}` : malformedUrl(request)
}

/** A URL that never parses but keeps the request's path, for the gateway to route its 400 by. */
function malformedUrl(request: ExpressRequest): string {
  const target = targetOf(request)
  return `${schemeOf(request)}://${malformedAuthority}${target.startsWith('/') ? target : '/'}`
}

function targetOf(request: ExpressRequest): string {
  return request.originalUrl ?? request.url ?? '/'
}

function schemeOf(request: ExpressRequest): 'http' | 'https' {
  return 'encrypted' in request.socket && request.socket.encrypted === true ? 'https' : 'http'
}

/** A bodiless `Request` standing for one that cannot be built, with the real URL and method. */
function standIn(url: string, method: string, headers: Headers, signal: AbortSignal): Request {
  const request = new Request('http://localhost/', { headers, signal })
  Object.defineProperties(request, { url: { value: url }, method: { value: method } })
  return request
}

function bodyOf(request: ExpressRequest, headers: Headers): BodyInit {
  const parsed = request.body
  if (parsed === undefined || request.readableEnded === false) return requestBody(request)
  // A body parser ran first and consumed the stream.
  headers.delete('content-length')
  if (typeof parsed === 'string' || parsed instanceof Uint8Array) return parsed as BodyInit
  return JSON.stringify(parsed)
}

/**
 * The request body as a web stream, read as the gateway pulls it, with backpressure to the socket.
 * Unlike `Readable.toWeb`, cancelling it (the gateway refusing an oversized body) does not destroy
 * the socket: the error answer still has to be written, and it closes the connection itself
 * (`connection: close`) since the rest of the body will never be read.
 */
function requestBody(request: IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        request.on('data', (chunk: Buffer) => {
          if (settled) return
          // A view over the socket's own read buffer, which Node never reuses: no copy.
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
          if ((controller.desiredSize ?? 0) <= 0) request.pause()
        })
        request.once('end', () => {
          if (settled) return
          settled = true
          controller.close()
        })
        request.once('close', () => {
          // 'close' follows 'end' too; before it, the client went away mid-body.
          if (settled) return
          settled = true
          controller.error(new Error('The client closed the connection mid-body.'))
        })
      },
      pull() {
        request.resume()
      },
      cancel() {
        settled = true
        request.pause()
      },
    },
    { highWaterMark: highWaterMarkBytes, size: (chunk) => chunk.byteLength },
  )
}
