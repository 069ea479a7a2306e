import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { upstreamAnswerKey } from '../../upstream/upstream-answer'
import { abortReason, createDirectFetch, fetchFailed, watchCall } from './node-direct-fetch'
import {
  toIncomingBody,
  toNodeReadable,
  toOutgoingBody,
  type IncomingBody,
  type OutgoingBody,
} from './node-fetch-body'

/** Options of `createNodeFetch`. */
export type NodeFetchOptions = {
  /** The agent for `http:` URLs. Defaults to a keep-alive agent of this fetch's own. */
  httpAgent?: HttpAgent | undefined
  /** The agent for `https:` URLs. Defaults to a keep-alive agent of this fetch's own. */
  httpsAgent?: HttpsAgent | undefined
}

/**
 * How long a pooled connection may sit idle. It stays under the 5 s keep-alive timeout of Node
 * servers, so a request never goes out on a socket the upstream is closing at that moment; an
 * upstream's shorter `Keep-Alive: timeout=` hint wins (Node's agent reads it).
 */
const idleSocketTimeoutMs = 4_000

const agentOptions = {
  keepAlive: true,
  scheduling: 'lifo',
  timeout: idleSocketTimeoutMs,
  noDelay: true,
} as const

const redirectStatuses = new Set([301, 302, 303, 307, 308])
const nullBodyStatuses = new Set([204, 205, 304])
const normalizedMethods = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'])
const bodyHeaders = ['content-type', 'content-length', 'content-encoding', 'content-language']
const credentialHeaders = ['authorization', 'proxy-authorization', 'cookie']
const maxRedirects = 20

/** One hop of a fetch: redirects rewrite it in place. */
type Target = {
  url: URL
  method: string
  headers: Record<string, string>
  body: OutgoingBody
  signal: AbortSignal | undefined
}

/**
 * A `fetch` built on `node:http` and `node:https` with keep-alive agents, for the gateway's
 * upstream calls on Node (pass it as the config's `fetch`). It relays faster than Node's global
 * fetch: see docs/decisions/0002-node-upstream-transport.md for the figures.
 *
 * It honours `method`, `headers`, `body` (strings and bytes go out with a `content-length`; a
 * `ReadableStream` goes out chunked), `signal` and `redirect`. The response body streams as it
 * arrives, with backpressure down to the socket, and gzip, deflate and brotli bodies are decoded
 * as fetch does. An abort destroys the connection: the promise rejects, or a body already being
 * read errors, with the signal's reason (an `AbortError`). Network failures reject with
 * `TypeError: fetch failed`, like fetch. Other `RequestInit` fields (cache, credentials, mode…)
 * mean nothing outside a browser and are ignored.
 *
 * @example
 * import { createNodeFetch } from 'model-gateway/node'
 * const gateway = createGateway({ ...config, fetch: createNodeFetch() })
 */
export function createNodeFetch(options: NodeFetchOptions = {}): typeof fetch {
  const httpAgent = options.httpAgent ?? new HttpAgent(agentOptions)
  let httpsAgent = options.httpsAgent
  const agentFor = (url: URL): HttpAgent =>
    url.protocol === 'https:' ? (httpsAgent ??= new HttpsAgent(agentOptions)) : httpAgent
  // A caller's agent (a proxy's, say) gets the headers as Node stores them (node-direct-fetch.ts).
  const ownAgent = (agent: HttpAgent): boolean =>
    agent === httpAgent ? options.httpAgent === undefined : options.httpsAgent === undefined

  const nodeFetch = async function nodeFetch(input: RequestInfo | URL, init: RequestInit = {}) {
    const target = await prepare(input, init)
    const redirect = init.redirect ?? (input instanceof Request ? input.redirect : 'follow')
    for (let hops = 0; ; hops += 1) {
      const response = await send(target, agentFor(target.url))
      const location = response.headers.get('location')
      if (redirect === 'manual' || location === null || !redirectStatuses.has(response.status)) {
        if (hops > 0) Object.defineProperty(response, 'redirected', { value: true })
        return response
      }
      await response.body?.cancel()
      if (redirect === 'error') throw fetchFailed(new Error(`Unexpected redirect to ${location}.`))
      if (hops === maxRedirects) throw fetchFailed(new Error('Too many redirects.'))
      follow(target, response.status, location)
    }
  }
  // The gateway's own calls skip the WHATWG objects: a string body, a header record, an answer
  // read straight from the socket (ADR 0013). Never a redirect: the gateway follows none.
  const direct = createDirectFetch(agentFor, ownAgent)
  return Object.assign(nodeFetch, { [upstreamAnswerKey]: direct })
}

async function prepare(input: RequestInfo | URL, init: RequestInit): Promise<Target> {
  const request = input instanceof Request ? input : undefined
  const url = new URL(request?.url ?? String(input))
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw fetchFailed(new Error(`Unsupported protocol ${url.protocol}`))
  }
  const rawMethod = init.method ?? request?.method ?? 'GET'
  const upper = rawMethod.toUpperCase()
  const method = normalizedMethods.has(upper) ? upper : rawMethod
  const headers = toHeaderRecord(init.headers ?? request?.headers)
  const body = await toOutgoingBody(init.body !== undefined ? init.body : (request?.body ?? null))
  if (body.kind !== 'none' && (method === 'GET' || method === 'HEAD')) {
    throw new TypeError('Request with GET/HEAD method cannot have body.')
  }
  if (body.kind !== 'none' && body.contentType !== undefined) {
    headers['content-type'] ??= body.contentType
  }
  if (body.kind === 'bytes') {
    headers['content-length'] = String(body.length)
    delete headers['transfer-encoding']
  } else if (body.kind === 'none' && (method === 'POST' || method === 'PUT')) {
    headers['content-length'] = '0'
  }
  return { url, method, headers, body, signal: init.signal ?? request?.signal ?? undefined }
}

/** Headers in any `HeadersInit` form, as the lowercase record `node:http` takes. */
function toHeaderRecord(init: HeadersInit | undefined): Record<string, string> {
  // No prototype, so a header named like an Object method cannot collide with one.
  const record = Object.create(null) as Record<string, string>
  if (init === undefined) return record
  if (init instanceof Headers) {
    init.forEach((value, name) => (record[name] = value))
    return record
  }
  const entries = Array.isArray(init) ? init : Object.entries(init)
  for (const [name, value] of entries) {
    const key = name.toLowerCase()
    const previous = record[key]
    record[key] = previous === undefined ? value : `${previous}, ${value}`
  }
  return record
}

/** Rewrites the target for the next hop of a redirect, as the fetch standard says. */
function follow(target: Target, status: number, location: string): void {
  const next = new URL(location, target.url)
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw fetchFailed(new Error(`Redirect to unsupported protocol ${next.protocol}`))
  }
  const becomesGet =
    (status === 303 && target.method !== 'HEAD') ||
    ((status === 301 || status === 302) && target.method === 'POST')
  if (becomesGet) {
    target.method = 'GET'
    target.body = { kind: 'none' }
    for (const name of bodyHeaders) delete target.headers[name]
  } else if (target.body.kind === 'stream') {
    throw fetchFailed(new Error('A streamed request body cannot be sent again on a redirect.'))
  }
  // Credentials meant for one origin never follow a redirect to another.
  if (next.origin !== target.url.origin) {
    for (const name of credentialHeaders) delete target.headers[name]
  }
  target.url = next
}

/** Sends one request and resolves with its response as soon as the headers arrive. */
function send(target: Target, agent: HttpAgent): Promise<Response> {
  const { signal } = target
  if (signal?.aborted === true) return Promise.reject(abortReason(signal))
  return new Promise<Response>((resolve, reject) => {
    const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest
    let outgoing: ClientRequest
    try {
      outgoing = request(target.url, { method: target.method, headers: target.headers, agent })
    } catch (error) {
      // Node refuses invalid header names or values before sending anything.
      reject(fetchFailed(error))
      return
    }
    let body: IncomingBody | undefined
    const detach = watchCall(outgoing, signal, reject, () => body)
    outgoing.once('response', (incoming) => {
      const status = incoming.statusCode ?? 0
      const headers = new Headers()
      const raw = incoming.rawHeaders
      for (let index = 0; index + 1 < raw.length; index += 2) {
        headers.append(raw[index]!, raw[index + 1]!)
      }
      const init = { status, statusText: incoming.statusMessage ?? '', headers }
      try {
        let response: Response
        if (target.method === 'HEAD' || nullBodyStatuses.has(status)) {
          detach()
          incoming.resume()
          response = new Response(null, init)
        } else {
          body = toIncomingBody(incoming, { settle: detach, cancel: () => outgoing.destroy() })
          response = new Response(body.stream, init)
        }
        Object.defineProperty(response, 'url', { value: target.url.href })
        resolve(response)
      } catch (error) {
        // A status the Response constructor refuses (outside 200–599).
        detach()
        outgoing.destroy()
        reject(fetchFailed(error))
      }
    })
    const payload = target.body
    if (payload.kind === 'bytes') {
      outgoing.end(payload.data)
    } else if (payload.kind === 'stream') {
      const readable = toNodeReadable(payload.data)
      readable.once('error', (error) => outgoing.destroy(error))
      readable.pipe(outgoing)
    } else {
      outgoing.end()
    }
  })
}
