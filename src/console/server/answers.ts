/**
 * The console's Content-Security-Policy: scripts and styles from the console's own files only (no
 * inline script, no `eval`), data only from its own API, and never inside a frame.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

/** Headers every console answer carries. */
export function securityHeaders(headers: Headers): Headers {
  headers.set('content-security-policy', contentSecurityPolicy)
  headers.set('x-content-type-options', 'nosniff')
  headers.set('x-frame-options', 'DENY')
  headers.set('referrer-policy', 'no-referrer')
  headers.set('cross-origin-opener-policy', 'same-origin')
  headers.set('cross-origin-resource-policy', 'same-origin')
  return headers
}

/** A JSON answer of the console's API: never cached, never framed. */
export function json(value: unknown, status = 200, extra?: HeadersInit): Response {
  const headers = securityHeaders(new Headers(extra))
  headers.set('content-type', 'application/json; charset=utf-8')
  headers.set('cache-control', 'no-store')
  return new Response(JSON.stringify(value), { status, headers })
}

/**
 * A refusal the page shows as it is: `{"error":{"message"}}` with a 4xx status. Messages say what
 * to do; they never carry a stack trace or a secret.
 */
export class ConsoleError extends Error {
  readonly status: number
  readonly headers: Record<string, string> | undefined

  constructor(status: number, message: string, headers?: Record<string, string>) {
    super(message)
    this.name = 'ConsoleError'
    this.status = status
    this.headers = headers
  }
}

/** The answer to a thrown `ConsoleError`. */
export function errorAnswer(error: ConsoleError): Response {
  return json({ error: { message: error.message } }, error.status, error.headers)
}
