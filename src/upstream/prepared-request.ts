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

/**
 * How an upstream whose credential expires renews it when an answer refuses it: the clouds' tokens
 * can expire or be revoked between the cache's check and the cloud's. An answer of 401 or 403 is
 * read (its body is small) and offered to `refused`; when it says the credential was refused,
 * `renew` is called with the request that was sent (to forget the credential it carried), and the
 * call is prepared, signed and sent once more. A second refusal is the answer.
 */
export type CredentialRenewal = {
  /** Whether a 401 or 403 answer with this body refused the credential itself. */
  refused(status: number, body: string): boolean
  /** Forgets the credential `sent` carried, so that the next signing fetches a fresh one. */
  renew(sent: PreparedRequest): void | Promise<void>
}
