import type { UpstreamCall } from './provider'

/**
 * What a protocol family's HTTP upstreams need from the HTTP provider: each operation's path
 * under the base URL, the header that carries the API key, and headers the family requires when
 * the call has none. Each family's folder defines its own (`openai/wire.ts`, …).
 */
export type HttpWire = {
  /** The path (and query) of the call's operation, appended to the base URL. */
  path(call: UpstreamCall): string
  /** The header name and value that carry the API key. */
  credentialHeader(apiKey: string): readonly [name: string, value: string]
  /** Sets the headers the family requires when the call carries none (a version header). */
  defaults?(headers: Record<string, string>): void
}

/** The error for an operation a family's upstream does not serve. */
export function unservedOperation(family: string, call: UpstreamCall): Error {
  return new Error(`An ${family} upstream does not serve the operation ${call.operation}.`)
}
