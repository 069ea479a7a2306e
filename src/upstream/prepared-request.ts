import type { UpstreamCall } from './provider'

/**
 * An upstream call as it goes on the wire: the URL, the method, the headers (lower-case names, in
 * an object without a prototype) and the body. An HTTP provider prepares it once, then signs it if
 * its kind signs, then sends it over whichever transport it has (a WHATWG `fetch`, or the Node
 * transport's direct path), so every transport sends the same bytes and a signature covers
 * exactly what is sent.
 */
export type PreparedRequest = {
  url: string
  method: string
  headers: Record<string, string>
  body: string
}

/**
 * Adjusts a prepared request before it is signed and sent: another URL (an Azure deployment, a
 * Vertex model path), another body, more headers. It may change `request` in place and return it.
 */
export type PrepareHook = (request: PreparedRequest, call: UpstreamCall) => PreparedRequest

/**
 * Signs a prepared request, the last step before it is sent: it adds the headers its signature
 * scheme needs (an `authorization` computed over the method, URL, headers and body, a date), and
 * must not change anything it signed afterwards. May be asynchronous (WebCrypto is).
 */
export type SignHook = (
  request: PreparedRequest,
  call: UpstreamCall,
) => PreparedRequest | Promise<PreparedRequest>
