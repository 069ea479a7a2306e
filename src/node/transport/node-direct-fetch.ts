import type { Agent as HttpAgent, ClientRequest } from 'node:http'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { CallSignal } from '../../internal/call-signal'
import type { DirectFetch, UpstreamAnswer } from '../../upstream/upstream-answer'
import { toNodeBody, toUpstreamAnswer, type NodeBody } from './node-upstream-answer'

const nullBodyStatuses = new Set([204, 205, 304])

/**
 * The direct path of `createNodeFetch`, for the gateway's own calls: a string body, a header
 * record, an answer read straight from the socket (ADR 0013), never a redirect (the gateway
 * follows none). Each URL is parsed into `http.request` options once, not once per call.
 */
export function createDirectFetch(
  agentFor: (url: URL) => HttpAgent,
  ownAgent: (agent: HttpAgent) => boolean = () => false,
): DirectFetch {
  const targets = new Map<string, DirectTarget>()
  return (url, init) => {
    let target = targets.get(url)
    if (target === undefined) {
      // An upstream's few URLs (one per operation, or per model for Gemini) are parsed once.
      if (targets.size >= maxDirectTargets) targets.clear()
      target = directTarget(new URL(url), agentFor, ownAgent)
      targets.set(url, target)
    }
    return sendDirect(target, init)
  }
}

/** How many parsed URLs the direct path keeps (a URL per upstream operation and model). */
const maxDirectTargets = 256

/** A URL as `http.request` takes it, parsed once: the request function and its options. */
type DirectTarget = {
  request: typeof httpRequest
  options: {
    protocol: string
    hostname: string
    port: string | undefined
    path: string
    agent: HttpAgent
  }
  /** The `host` header, as Node writes it: IPv6 in brackets, the port unless the scheme's own. */
  host: string
  /** The URL's credentials (`user:password`, decoded), for Node to send as it does. */
  auth: string | undefined
  /** `Basic …` of the URL's credentials, as Node sends them, when it has any. */
  authorization: string | undefined
  /** Whether the headers may go as a flat list: the agent is the gateway's own (`headerList`). */
  listHeaders: boolean
}

function directTarget(
  url: URL,
  agentFor: (url: URL) => HttpAgent,
  ownAgent: (agent: HttpAgent) => boolean,
): DirectTarget {
  const https = url.protocol === 'https:'
  // As Node's own `urlToHttpOptions`: brackets off an IPv6 host, credentials decoded.
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  const auth =
    url.username === '' && url.password === ''
      ? undefined
      : `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
  const agent = agentFor(url)
  return {
    request: https ? httpsRequest : httpRequest,
    options: {
      protocol: url.protocol,
      hostname,
      port: url.port === '' ? undefined : url.port,
      path: `${url.pathname}${url.search}`,
      agent,
    },
    host: url.host,
    auth,
    authorization: auth === undefined ? undefined : `Basic ${Buffer.from(auth).toString('base64')}`,
    listHeaders: ownAgent(agent),
  }
}

/**
 * The call's headers as the flat `[name, value, …]` list `http.request` writes as it is: given a
 * record, Node calls `setHeader` for each (a lower-casing, a validation and a store in a map of
 * its own) and then walks that map again to write them. With a list Node validates each header
 * once and adds neither `host` nor the URL's credentials, so they are added here, as Node would.
 *
 * Only with the gateway's own agents and no `host` of the call's own (`sendDirect`): an agent
 * reads the stored headers a list leaves empty — Node's TLS agent names the server (SNI, the
 * certificate's name) after a `host` header, and a custom agent (a proxy's) may set or rewrite
 * headers in `addRequest`, after a list is already written.
 */
function headerList(target: DirectTarget, headers: Record<string, string>, body: string): string[] {
  const list: string[] = []
  let hasType = false
  let hasAuthorization = false
  for (const name in headers) {
    // The body's length is the gateway's to state, whatever the record says.
    if (name === 'content-length') continue
    if (name === 'content-type') hasType = true
    else if (name === 'authorization') hasAuthorization = true
    list.push(name, headers[name]!) // lookup-safe: a key of the record's own, from for-in
  }
  if (!hasType) list.push('content-type', 'text/plain;charset=UTF-8')
  list.push('content-length', String(Buffer.byteLength(body)))
  // `sendDirect` sends a call with a host of its own as a record.
  list.push('host', target.host)
  if (!hasAuthorization && target.authorization !== undefined) {
    list.push('authorization', target.authorization)
  }
  return list
}

/** The record with the body's length, and a type when it names none, for Node to send. */
function withBody(headers: Record<string, string>, body: string): Record<string, string> {
  headers['content-length'] = String(Buffer.byteLength(body))
  headers['content-type'] ??= 'text/plain;charset=UTF-8'
  return headers
}

/** One call of the gateway's own, answered as an `UpstreamAnswer` once the headers arrive. */
function sendDirect(
  target: DirectTarget,
  init: Parameters<DirectFetch>[1],
): Promise<UpstreamAnswer> {
  const { signal } = init
  if (signal.aborted) return Promise.reject(abortReason(signal))
  return new Promise<UpstreamAnswer>((resolve, reject) => {
    let outgoing: ClientRequest
    try {
      const options = target.options
      const headers = init.headers
      // One shape for every call's options (a spread would copy them through V8's generic path).
      outgoing =
        target.listHeaders && headers['host'] === undefined // lookup-safe: a prototype-less record
          ? target.request({
              protocol: options.protocol,
              hostname: options.hostname,
              port: options.port,
              path: options.path,
              agent: options.agent,
              method: init.method,
              headers: headerList(target, headers, init.body),
            })
          : target.request({
              ...options,
              auth: target.auth,
              method: init.method,
              headers: withBody(headers, init.body),
            })
    } catch (error) {
      reject(fetchFailed(error))
      return
    }
    let body: NodeBody | undefined
    const detach = watchCall(outgoing, signal, reject, () => body)
    outgoing.once('response', (incoming) => {
      const status = incoming.statusCode ?? 0
      if (status < 200 || status > 599) {
        // What the Response constructor refuses, refused the same way.
        detach()
        outgoing.destroy()
        reject(fetchFailed(new RangeError(`Invalid status ${status}.`)))
        return
      }
      if (nullBodyStatuses.has(status)) {
        detach()
        incoming.resume()
        resolve(toUpstreamAnswer(incoming, null))
        return
      }
      body = toNodeBody(incoming, { settle: detach, cancel: () => outgoing.destroy() })
      resolve(toUpstreamAnswer(incoming, body))
    })
    outgoing.end(init.body)
  })
}

/**
 * Ties a call to its signal and to its request's errors until it is settled: an abort destroys the
 * socket (so the upstream sees the client leave) and rejects the call, or fails the body once the
 * response has arrived, which then reports every failure itself.
 *
 * @returns `detach`, to stop listening to the signal
 */
export function watchCall(
  outgoing: ClientRequest,
  signal: CallSignal | undefined,
  reject: (reason: unknown) => void,
  body: () => { fail(reason: unknown): void } | undefined,
): () => void {
  const detach = () => signal?.removeEventListener('abort', onAbort)
  const onAbort = () => {
    detach()
    outgoing.destroy()
    const current = body()
    if (current === undefined) reject(abortReason(signal!))
    else current.fail(abortReason(signal!))
  }
  signal?.addEventListener('abort', onAbort, { once: true })
  outgoing.on('error', (error) => {
    if (body() !== undefined) return
    detach()
    reject(fetchFailed(error))
  })
  return detach
}

export function abortReason(signal: CallSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
}

export function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause })
}
