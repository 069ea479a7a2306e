import { maskKey } from '../auth/mask-key'
import type { ProtocolName } from '../protocols/protocol-name'
import type { CallSignal } from '../internal/call-signal'
import { headerRecordOf } from './call-headers'
import { familyWire } from './family-wire'
import type { HttpWire } from './http-wire'
import type { CredentialRenewal, PreparedRequest, PrepareHook, SignHook } from './prepared-request'
import { answerBody, responseBody, sendRenewing } from './renew-once'
import { upstreamSpecificationVersion, type UpstreamCall, type UpstreamProvider } from './provider'
import { directFetchOf, upstreamAnswerKey, type UpstreamAnswer } from './upstream-answer'

export { defaultAnthropicVersion } from './anthropic/wire'

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
  /**
   * The paths, credential header and required headers of the upstream; by default those of the
   * `protocol`'s family. An upstream kind with other paths or another key header gives its own.
   */
  wire?: HttpWire | undefined
  /** Adjusts each prepared request (URL, body, headers) before it is signed and sent. */
  prepare?: PrepareHook | undefined
  /** Signs each prepared request, the last step before it is sent (see `SignHook`). */
  sign?: SignHook | undefined
  /**
   * Renews a credential an answer refused (401 or 403 saying it expired) and sends the call once
   * more (see `CredentialRenewal`): for a kind whose `sign` hook uses a short-lived credential.
   */
  renewal?: CredentialRenewal | undefined
  /** Reads a stream that is not SSE (see `UpstreamProvider.readStream`). */
  readStream?: UpstreamProvider['readStream']
  /** Maps the upstream's error bodies to its family's shape (see `UpstreamProvider.normaliseError`). */
  normaliseError?: UpstreamProvider['normaliseError']
  /**
   * Further values no client, log or event may see (a signing secret), besides the keys. A
   * function, for credentials that change while the gateway runs (a cloud's short-lived token a
   * `sign` hook fetches): it is called on error paths only, and should return the same array for
   * as long as the credentials it lists are the same.
   */
  secrets?: readonly string[] | (() => readonly string[]) | undefined
}

/**
 * An upstream reached over HTTP. It sets the upstream's own credentials; the client's never reach
 * it, because the gateway builds `call.headers` from an allow-list. Redirects are never followed,
 * and its `secrets` (the API key or every pooled key, secret-looking header values) are scrubbed
 * from upstream errors.
 *
 * Each call is prepared once as a `PreparedRequest` (URL, headers, body), adjusted by `prepare`,
 * signed by `sign`, and then sent: over `fetch`, or over the Node transport's direct path when
 * `fetch` has one (`createNodeFetch`), which takes the same request without building a `Response`.
 */
export function createHttpProvider(options: HttpProviderOptions): UpstreamProvider {
  const base = options.baseUrl.replace(/\/+$/, '')
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init))
  const direct = directFetchOf(options.fetch)
  const wire = options.wire ?? familyWire(options.protocol)
  const { prepare: adjust, sign, renewal } = options
  const pool =
    options.apiKeys !== undefined && options.apiKeys.length > 0 ? options.apiKeys : undefined
  const extraHeaders =
    options.headers === undefined
      ? undefined
      : Object.entries(options.headers).map(([name, value]) => [name.toLowerCase(), value] as const)
  /** The key of this call: the pooled one it names, else the first, else the single `apiKey`. */
  const keyOf = (call: UpstreamCall): string | undefined =>
    pool === undefined
      ? options.apiKey
      : ((call.credential === undefined ? undefined : pool[call.credential]) ?? pool[0])

  /** The call as it goes on the wire, whatever the transport: the one place headers are set. */
  const prepare = (call: UpstreamCall): PreparedRequest => {
    // A fresh record without a prototype: a header name can never meet an Object member.
    const headers = headerRecordOf(call)
    if (extraHeaders !== undefined) {
      for (const [name, value] of extraHeaders) headers[name] = value // lookup-safe: a prototype-less record
    }
    const apiKey = keyOf(call)
    if (apiKey !== undefined && apiKey !== '') {
      const [name, value] = wire.credentialHeader(apiKey)
      headers[name] = value // lookup-safe: a prototype-less record
    }
    wire.defaults?.(headers)
    if (call.stream) headers['accept'] = 'text/event-stream'
    const request = { url: `${base}${wire.path(call)}`, method: 'POST', headers, body: call.body }
    if (!custom) return request
    return lowerCased(adjust === undefined ? request : adjust(request, call))
  }
  // A kind's own wire, prepare or sign hook may name a header in any case; the direct Node path
  // sends the record as it is, so `Host` beside `host` would go out twice, and fetch would join
  // `Content-Type` and `content-type` into one value: one spelling, on both transports. The
  // built-in wires write lower case, so their calls skip the copy.
  const custom = options.wire !== undefined || adjust !== undefined || sign !== undefined
  const signed = async (call: UpstreamCall): Promise<PreparedRequest> =>
    sign === undefined ? prepare(call) : lowerCased(await sign(prepare(call), call))

  const fetchPrepared = (request: PreparedRequest, call: UpstreamCall): Promise<Response> =>
    doFetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: call.signal,
      // A redirect would carry the upstream key and the prompt to wherever it points (fetch
      // keeps `x-api-key` and `x-goog-api-key` across origins); a 3xx is answered as a 502.
      redirect: 'manual',
    })

  const provider: UpstreamProvider = {
    id: options.id,
    protocol: options.protocol,
    specificationVersion: upstreamSpecificationVersion,
    weight: options.weight,
    secrets: configuredSecrets(options, undefined),
    credentials: pool?.map((key) => maskKey(key) ?? 'sk-…'),
    maxConcurrent: options.maxConcurrent,
    async send(call: UpstreamCall) {
      if (renewal === undefined) return fetchPrepared(await signed(call), call)
      const once = async () => {
        const request = await signed(call)
        return { request, answer: await fetchPrepared(request, call) }
      }
      return sendRenewing(once, renewal, responseBody)
    },
    ...(options.readStream === undefined ? {} : { readStream: options.readStream }),
    ...(options.normaliseError === undefined ? {} : { normaliseError: options.normaliseError }),
  }
  const live = options.secrets
  if (typeof live === 'function') {
    // Read on each error: a new array from the source (a token refreshed) makes a new list, which
    // the gateway's scrubber cache sees as new; the same one keeps the list and its scrubber.
    let source: readonly string[] | undefined
    let list: readonly string[] = []
    Object.defineProperty(provider, 'secrets', {
      enumerable: true,
      get: () => {
        const current = live()
        if (current !== source) {
          source = current
          list = configuredSecrets(options, current)
        }
        return list
      },
    })
  }
  if (direct === undefined) return provider
  // The transport answers without a `Response` (createNodeFetch): the same prepared request,
  // headers as a plain record. Redirects are never followed on this path either.
  const sendDirect = (request: PreparedRequest, signal: CallSignal): Promise<UpstreamAnswer> =>
    direct(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal,
    })
  return Object.assign(provider, {
    [upstreamAnswerKey]: (call: UpstreamCall, signal: CallSignal) => {
      if (sign === undefined && renewal === undefined) return sendDirect(prepare(call), signal)
      const once = async () => {
        const request = await signed(call)
        return { request, answer: await sendDirect(request, signal) }
      }
      if (renewal === undefined) return once().then((sent) => sent.answer)
      return sendRenewing(once, renewal, answerBody)
    },
  })
}

/**
 * The request with every header name in lower case, in a fresh prototype-less record; of two
 * spellings of one name, the later one set wins (a signer's over the gateway's). The request
 * object itself is kept, so that a kind may know the request it signed when it is refused.
 */
function lowerCased(request: PreparedRequest): PreparedRequest {
  const headers: Record<string, string> = Object.create(null)
  for (const [name, value] of Object.entries(request.headers)) {
    headers[name.toLowerCase()] = value // lookup-safe: a prototype-less record
  }
  request.headers = headers
  return request
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
function configuredSecrets(
  options: HttpProviderOptions,
  live: readonly string[] | undefined,
): string[] {
  const secrets: string[] = []
  if (options.apiKey !== undefined && options.apiKey !== '') secrets.push(options.apiKey)
  for (const key of options.apiKeys ?? []) if (key !== '') secrets.push(key)
  const declared = typeof options.secrets === 'function' ? live : options.secrets
  for (const secret of declared ?? []) if (secret !== '') secrets.push(secret)
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
