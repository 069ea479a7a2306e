import type { UpstreamCall } from './provider'

/** Header names (lower case) to values, in an object without a prototype. */
export type HeaderRecord = Record<string, string>

/**
 * The headers of an upstream call while the gateway builds it: a plain record with the few
 * `Headers` methods the gateway uses (names are case-insensitive), so that the direct Node path
 * sends them without building undici's `Headers`, which validates and sorts on every call. A
 * `Headers` is built only for a provider that reads `UpstreamCall.headers`.
 */
export class CallHeaders {
  /** The headers, by lower-case name. */
  readonly record: HeaderRecord = Object.create(null) as HeaderRecord

  set(name: string, value: string): void {
    this.record[name.toLowerCase()] = value // lookup-safe: a prototype-less record
  }

  get(name: string): string | null {
    return this.record[name.toLowerCase()] ?? null // lookup-safe: a prototype-less record
  }

  has(name: string): boolean {
    return this.record[name.toLowerCase()] !== undefined // lookup-safe: a prototype-less record
  }

  delete(name: string): void {
    delete this.record[name.toLowerCase()] // lookup-safe: a prototype-less record
  }

  /** A WHATWG `Headers` of the same names and values (a copy). */
  toHeaders(): Headers {
    return new Headers(Object.entries(this.record))
  }
}

/**
 * The key under which a call the gateway built carries its header record, for the built-in
 * provider's direct Node path; present only while `headers` has not been read (a reader may
 * change the `Headers` it got).
 */
export const headerRecordKey: unique symbol = Symbol('model-gateway.headerRecord')

/** An upstream call as the gateway builds it. */
export type GatewayUpstreamCall = UpstreamCall & {
  readonly [headerRecordKey]?: HeaderRecord | undefined
}

/**
 * The header record of a call, to send on the direct path: the gateway's own when the call
 * carries it, else read from `call.headers` (a call built elsewhere). Always a fresh record.
 */
export function headerRecordOf(call: UpstreamCall): HeaderRecord {
  const headers = Object.create(null) as HeaderRecord
  const own = (call as GatewayUpstreamCall)[headerRecordKey]
  if (own !== undefined) return Object.assign(headers, own)
  // lookup-safe: a prototype-less record
  call.headers.forEach((value, name) => (headers[name] = value))
  return headers
}

/**
 * An upstream call as the gateway sends it: `headers` is a `Headers` built on first read, and
 * `signal` the `AbortSignal` that `signal()` builds on first read (the direct Node path reads
 * neither).
 */
export function gatewayCall(
  fields: Omit<UpstreamCall, 'headers' | 'signal'>,
  headers: CallHeaders,
  signal: () => AbortSignal,
): GatewayUpstreamCall {
  let built: Headers | undefined
  return {
    ...fields,
    get headers() {
      return (built ??= headers.toHeaders())
    },
    get signal() {
      return signal()
    },
    get [headerRecordKey]() {
      return built === undefined ? headers.record : undefined
    },
  }
}
