import type { ProtocolName } from '../protocols/protocol-name'
import type { UpstreamCall, UpstreamProvider } from './provider'

/** Settings of an HTTP upstream, mirroring the official SDKs' client options. */
export type HttpProviderOptions = {
  id: string
  protocol: ProtocolName
  /** Base URL by the family's SDK convention: OpenAI's includes `/v1`. */
  baseUrl: string
  apiKey?: string | undefined
  /** Extra headers sent on every call (for example an organisation id). */
  headers?: Readonly<Record<string, string>> | undefined
  weight?: number | undefined
  /** The fetch to use; defaults to the global one. */
  fetch?: typeof fetch | undefined
}

/**
 * An upstream reached over HTTP. It sets the upstream's own credentials; the client's never reach
 * it, because the gateway builds `call.headers` from an allow-list.
 */
export function createHttpProvider(options: HttpProviderOptions): UpstreamProvider {
  const base = options.baseUrl.replace(/\/+$/, '')
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init))
  return {
    id: options.id,
    protocol: options.protocol,
    weight: options.weight,
    send(call: UpstreamCall) {
      const headers = new Headers(call.headers)
      for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value)
      if (options.apiKey !== undefined && options.apiKey !== '') {
        headers.set('authorization', `Bearer ${options.apiKey}`)
      }
      if (call.stream) headers.set('accept', 'text/event-stream')
      return doFetch(`${base}${pathOf(call)}`, {
        method: 'POST',
        headers,
        body: call.body,
        signal: call.signal,
      })
    },
  }
}

function pathOf(call: UpstreamCall): string {
  switch (call.operation) {
    case 'chat-completions':
      return '/chat/completions'
    default: {
      const unknown: never = call.operation
      throw new Error(`Unknown upstream operation: ${String(unknown)}`)
    }
  }
}
