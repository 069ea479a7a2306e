import type { ProtocolName } from './protocols/protocol-name'

/**
 * The one error type of the gateway. Core code throws and passes `GatewayError`s; only the
 * protocol renderers turn them into vendor-shaped JSON, so an error always reaches the caller in
 * the protocol of the route it called.
 *
 * @module
 */

/** What went wrong, independent of any wire protocol. */
export type GatewayErrorCode =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'model_not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'quota_exceeded'
  | 'budget_exceeded'
  | 'rate_limited'
  | 'upstream_error'
  | 'upstream_unreachable'
  | 'upstream_timeout'
  | 'overloaded'
  | 'unavailable'
  | 'internal'

/** The HTTP status each code gets when the error does not carry an upstream status of its own. */
const defaultStatus: Record<GatewayErrorCode, number> = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  model_not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  quota_exceeded: 429,
  budget_exceeded: 429,
  rate_limited: 429,
  upstream_error: 502,
  upstream_unreachable: 502,
  upstream_timeout: 504,
  overloaded: 529,
  unavailable: 503,
  internal: 500,
}

/** What an upstream answered, kept so that renderers can pass a same-protocol body through. */
export type UpstreamErrorDetail = {
  status: number
  /** The upstream's protocol: its body goes to the client verbatim only in that protocol. */
  protocol?: ProtocolName
  /** The upstream's error body, parsed when it was JSON. */
  body?: unknown
}

/** Options of the `GatewayError` constructor. */
export type GatewayErrorOptions = {
  /** Overrides the code's default HTTP status. */
  status?: number
  /** The request field at fault, for `invalid_request`. */
  param?: string
  cause?: unknown
  upstream?: UpstreamErrorDetail
  /** Headers the error response carries, such as `allow` or `retry-after`. */
  headers?: Readonly<Record<string, string>>
}

const marker = Symbol.for('model-gateway.error')

/**
 * An error with a protocol-neutral code and an HTTP status.
 *
 * @example
 * throw new GatewayError('invalid_request', '`messages` must be a non-empty array.', { param: 'messages' })
 */
export class GatewayError extends Error {
  readonly code: GatewayErrorCode
  readonly status: number
  readonly param: string | undefined
  readonly upstream: UpstreamErrorDetail | undefined
  readonly headers: Readonly<Record<string, string>> | undefined
  /** Marks instances across duplicate copies of the package, where `instanceof` fails. */
  readonly [marker] = true

  constructor(code: GatewayErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'GatewayError'
    this.code = code
    this.status = options.status ?? defaultStatus[code]
    this.param = options.param
    this.upstream = options.upstream
    this.headers = options.headers
  }

  /** Whether retrying the same request elsewhere could succeed. */
  get retryable(): boolean {
    return (
      this.code === 'upstream_unreachable' ||
      this.code === 'upstream_timeout' ||
      this.code === 'overloaded' ||
      this.code === 'unavailable' ||
      this.code === 'rate_limited' ||
      (this.code === 'upstream_error' && this.status >= 500)
    )
  }

  /** True for a `GatewayError` from any copy of this package. */
  static isInstance(value: unknown): value is GatewayError {
    return typeof value === 'object' && value !== null && marker in value
  }
}

/** True for a `GatewayError` from any copy of this package. */
export function isGatewayError(value: unknown): value is GatewayError {
  return GatewayError.isInstance(value)
}

/** Wraps anything thrown into a `GatewayError`, keeping the original as `cause`. */
export function toGatewayError(value: unknown): GatewayError {
  if (isGatewayError(value)) return value
  return new GatewayError('internal', 'The gateway failed to handle the request.', { cause: value })
}
