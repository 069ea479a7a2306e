import { maskKey } from '../auth/mask-key'
import type { ProtocolName } from '../protocols/protocol-name'
import type { CallSignal } from '../internal/call-signal'
import { headerRecordOf } from './call-headers'
import type { UpstreamCall, UpstreamProvider } from './provider'
import { directFetchOf, upstreamAnswerKey } from './upstream-answer'

/** The `anthropic-version` sent when the client sent none. */
export const defaultAnthropicVersion = '2023-06-01'

/** Settings of an HTTP upstream, mirroring the official SDKs' client options. */
export type HttpProviderOptions = {
  id: string
  protocol: ProtocolName
  /** Base URL by the family's SDK convention: OpenAI's includes `/v1`. */
  baseUrl: string
  apiKey?: string | undefined
  /**
   * A pool of keys instead of `apiKey`: each call uses the one `UpstreamCall.credential` names
   * (the gateway's selector rotates them and takes refused ones out of rotation); a call that names
   * none uses the first.
   */
  apiKeys?: readonly string[] | undefined
  /** The most calls given to this upstream at once (see `UpstreamProvider.maxConcurrent`). */
  maxConcurrent?: number | undefined
  /** Extra headers sent on every call (for example an organisation id). */
  headers?: Readonly<Record<string, string>> | undefined
  weight?: number | undefined
  /** The fetch to use; defaults to the global one. */
  fetch?: typeof fetch | undefined
}

/**
 * An upstream reached over HTTP. It sets the upstream's own credentials; the client's never reach
 * it, because the gateway builds `call.headers` from an allow-list. Redirects are never followed,
 * and its `secrets` (the API key or every pooled key, secret-looking header values) are scrubbed
 * from upstream errors.
 */
export function createHttpProvider(options: HttpProviderOptions): UpstreamProvider {
  const base = options.baseUrl.replace(/\/+$/, '')
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init))
  const direct = directFetchOf(options.fetch)
  const pool =
    options.apiKeys !== undefined && options.apiKeys.length > 0 ? options.apiKeys : undefined
  /** The key of this call: the pooled one it names, else the first, else the single `apiKey`. */
  const keyOf = (call: UpstreamCall): string | undefined =>
    pool === undefined
      ? options.apiKey
      : ((call.credential === undefined ? undefined : pool[call.credential]) ?? pool[0])
  const provider: UpstreamProvider = {
    id: options.id,
    protocol: options.protocol,
    weight: options.weight,
    secrets: configuredSecrets(options),
    credentials: pool?.map((key) => maskKey(key) ?? 'sk-…'),
    maxConcurrent: options.maxConcurrent,
    send(call: UpstreamCall) {
      const headers = new Headers(call.headers)
      for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value)
      const apiKey = keyOf(call)
      if (apiKey !== undefined && apiKey !== '') {
        headers.set(...authHeader(options.protocol, apiKey))
      }
      // Anthropic requires a version header; the client's own is forwarded on passthrough.
      if (options.protocol === 'anthropic' && !headers.has('anthropic-version')) {
        headers.set('anthropic-version', defaultAnthropicVersion)
      }
      if (call.stream) headers.set('accept', 'text/event-stream')
      return doFetch(`${base}${pathOf(call)}`, {
        method: 'POST',
        headers,
        body: call.body,
        signal: call.signal,
        // A redirect would carry the upstream key and the prompt to wherever it points (fetch
        // keeps `x-api-key` and `x-goog-api-key` across origins); a 3xx is answered as a 502.
        redirect: 'manual',
      })
    },
  }
  if (direct === undefined) return provider
  // The transport answers without a `Response` (createNodeFetch): the same call, with the headers
  // as a plain record. Redirects are never followed on this path either.
  return Object.assign(provider, {
    [upstreamAnswerKey]: (call: UpstreamCall, signal: CallSignal) => {
      // No prototype: a header name can never meet an Object member.
      const headers = headerRecordOf(call)
      for (const [name, value] of Object.entries(options.headers ?? {})) {
        headers[name.toLowerCase()] = value // lookup-safe: a prototype-less record
      }
      const apiKey = keyOf(call)
      if (apiKey !== undefined && apiKey !== '') {
        const [name, value] = authHeader(options.protocol, apiKey)
        headers[name] = value // lookup-safe: a prototype-less record
      }
      if (options.protocol === 'anthropic' && headers['anthropic-version'] === undefined) {
        headers['anthropic-version'] = defaultAnthropicVersion
      }
      if (call.stream) headers['accept'] = 'text/event-stream'
      return direct(`${base}${pathOf(call)}`, { method: 'POST', headers, body: call.body, signal })
    },
  })
}

function pathOf(call: UpstreamCall): string {
  switch (call.operation) {
    case 'chat-completions':
      return '/chat/completions'
    // Anthropic's and Gemini's base URLs are the bare host, by their SDKs' convention.
    case 'messages':
      return '/v1/messages'
    case 'count-tokens':
      return '/v1/messages/count_tokens'
    case 'generate-content':
      return `/v1beta/models/${encodeURIComponent(call.model)}:generateContent`
    case 'stream-generate-content':
      return `/v1beta/models/${encodeURIComponent(call.model)}:streamGenerateContent?alt=sse`
    case 'gemini-count-tokens':
      return `/v1beta/models/${encodeURIComponent(call.model)}:countTokens`
    case 'responses':
      return '/responses'
    case 'embeddings':
      return '/embeddings'
    case 'embed-content':
      return `/v1beta/models/${encodeURIComponent(call.model)}:embedContent`
    case 'batch-embed-contents':
      return `/v1beta/models/${encodeURIComponent(call.model)}:batchEmbedContents`
    default: {
      const unknown: never = call.operation
      throw new Error(`Unknown upstream operation: ${String(unknown)}`)
    }
  }
}

/** Each family's credential header: OpenAI's Bearer, Anthropic's `x-api-key`, Google's `x-goog-api-key`. */
function authHeader(protocol: ProtocolName, apiKey: string): [string, string] {
  switch (protocol) {
    case 'openai':
    case 'responses':
      return ['authorization', `Bearer ${apiKey}`]
    case 'anthropic':
      return ['x-api-key', apiKey]
    case 'gemini':
      return ['x-goog-api-key', apiKey]
    default: {
      const unknown: never = protocol
      throw new Error(`Unknown protocol ${String(unknown)}`)
    }
  }
}

/** Header names whose values are credentials, whatever they look like. */
const credentialName = /auth|key|token|secret|passw|cookie|session|signature|credential/i
/** A value that looks like a token: long, with no spaces. */
const tokenLike = /^[^\s]{16,}$/

/**
 * The values this upstream is sent that no client, log or event may see: the API key, and the
 * configured headers that are credentials by name or look like tokens (each part of a
 * `Bearer …` or `name=value; …` value too).
 */
function configuredSecrets(options: HttpProviderOptions): string[] {
  const secrets: string[] = []
  if (options.apiKey !== undefined && options.apiKey !== '') secrets.push(options.apiKey)
  for (const key of options.apiKeys ?? []) if (key !== '') secrets.push(key)
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (!credentialName.test(name) && !tokenLike.test(value)) continue
    secrets.push(value)
    for (const part of value.split(/[\s,;]+/)) {
      const token = part.slice(part.indexOf('=') + 1)
      if (token.length >= 8) secrets.push(token)
    }
  }
  return secrets
}
