import { readRequestText } from './read-body'

/** Request headers as the gateway reads them: by name, case-insensitively. */
export type RequestHeaders = {
  get(name: string): string | null
  has(name: string): boolean
}

/**
 * Tells that the client went away. An `AbortSignal` is one; the Node adapter passes a lighter
 * object, so that a request costs one `AbortController` (its upstream exchange's), not three.
 */
export type ClientSignal = {
  readonly aborted: boolean
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

/**
 * A request as the gateway reads it, whatever built it: a WHATWG `Request` (`fromWebRequest`) or
 * a Node `IncomingMessage` (the Node adapter), read directly.
 */
export type GatewayRequest = {
  readonly method: string
  /** The absolute URL; one that does not parse is answered 400 in the route's shape. */
  readonly url: string
  readonly headers: RequestHeaders
  readonly signal: ClientSignal
  /** The body as UTF-8 text, refused with 413 past `maxBytes` (before reading, by its length). */
  text(maxBytes: number): Promise<string>
}

/** A WHATWG `Request` as the gateway reads it. */
export function fromWebRequest(request: Request): GatewayRequest {
  return {
    method: request.method,
    url: request.url,
    headers: request.headers,
    signal: request.signal,
    text: (maxBytes) => readRequestText(request, maxBytes),
  }
}
