import type { Readable } from 'node:stream'
import { Agent, fetch as undiciFetch, request as undiciRequest, type Dispatcher } from 'undici'
import { createNodeFetch } from '../src/node/transport/node-fetch'
import { completionJson, streamFrames } from './payloads'

/** The upstream transports the gateway is measured with. */
export type TransportName = 'fetch' | 'node-fetch' | 'undici-request' | 'undici-fetch' | 'canned'

/** How each transport shows in the table. */
export const transportLabels: Record<TransportName, string> = {
  fetch: 'global fetch (undici in Node)',
  'node-fetch': 'createNodeFetch (node:http)',
  'undici-request': 'undici@7 request()',
  'undici-fetch': 'undici@7 fetch + Agent',
  canned: 'canned in-process upstream',
}

/** Pooled sockets idle at most this long, as in `createNodeFetch`. */
const keepAliveTimeoutMs = 4_000

/**
 * The `fetch` to give the gateway, or `undefined` for the core's default (the global fetch). The
 * undici adapters are benchmark-only: they handle just the call shape the HTTP provider makes
 * (string URL, `Headers`, string body, signal).
 */
export function createTransport(name: TransportName): typeof fetch | undefined {
  switch (name) {
    case 'fetch':
      return undefined
    case 'node-fetch':
      return createNodeFetch()
    case 'undici-request':
      return undiciRequestFetch(new Agent({ keepAliveTimeout: keepAliveTimeoutMs }))
    case 'undici-fetch': {
      const dispatcher = new Agent({ keepAliveTimeout: keepAliveTimeoutMs })
      return ((input: string, init: RequestInit) =>
        undiciFetch(input, { ...init, dispatcher } as Parameters<
          typeof undiciFetch
        >[1])) as unknown as typeof fetch
    }
    case 'canned':
      return cannedFetch
    default: {
      const unknown: never = name
      throw new Error(`Unknown transport ${String(unknown)}`)
    }
  }
}

/** undici's low-level `request()` (no fetch machinery), with its body wrapped as a Web stream. */
function undiciRequestFetch(dispatcher: Agent): typeof fetch {
  return (async (input: string, init: RequestInit = {}) => {
    const headers: Record<string, string> = {}
    new Headers(init.headers).forEach((value, name) => (headers[name] = value))
    const answer = await undiciRequest(input, {
      method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
      headers,
      body: init.body as string | undefined,
      signal: init.signal ?? undefined,
      dispatcher,
    })
    const responseHeaders = new Headers()
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const item of value) responseHeaders.append(name, item)
      else if (value !== undefined) responseHeaders.append(name, value)
    }
    return new Response(toWebStream(answer.body), {
      status: answer.statusCode,
      headers: responseHeaders,
    })
  }) as unknown as typeof fetch
}

/** A Node readable as a Web stream that pauses the source while the reader lags. */
function toWebStream(source: Readable): ReadableStream<Uint8Array> {
  let done = false
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        source.on('data', (chunk: Buffer) => {
          if (done) return
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
          if ((controller.desiredSize ?? 0) <= 0) source.pause()
        })
        source.once('end', () => {
          if (!done) controller.close()
          done = true
        })
        source.once('error', (error) => {
          if (!done) controller.error(error)
          done = true
        })
      },
      pull() {
        source.resume()
      },
      cancel() {
        done = true
        source.destroy()
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  )
}

const encodedFrames = streamFrames.withUsage.map((frame) => new TextEncoder().encode(frame))

/**
 * No transport at all: the mock's bytes answered in process. The gateway's cost with it is the
 * core plus the Node bridge, so subtracting it from a real transport's cost prices the transport.
 */
async function cannedFetch(_input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  if (typeof init?.body !== 'string' || !init.body.includes('"stream":true')) {
    return new Response(completionJson, { headers: { 'content-type': 'application/json' } })
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of encodedFrames) controller.enqueue(frame)
      controller.close()
    },
  })
  return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8' } })
}
