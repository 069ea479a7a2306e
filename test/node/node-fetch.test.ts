import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeFetch } from '../../src/node/transport/node-fetch'

type Handler = (request: IncomingMessage, response: ServerResponse, body: Buffer) => void

/** A real loopback server; each test says how it answers through `answer`. */
let handle: Handler = (_request, response) => response.end()
const received: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }> =
  []
const sockets = new Set<Socket>()
const server = createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    const body = Buffer.concat(chunks)
    received.push({ method: request.method!, url: request.url!, headers: request.headers, body })
    handle(request, response, body)
  })
})
server.on('connection', (socket) => sockets.add(socket))
let base = ''

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

function answer(handler: Handler): void {
  received.length = 0
  handle = handler
}

function deferred<T = void>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((done) => (resolve = done))
  return { promise, resolve }
}

const decoder = new TextDecoder()

describe('createNodeFetch', () => {
  const nodeFetch = createNodeFetch()

  it('resolves a JSON answer with its status, headers and URL', async () => {
    answer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes' })
      response.end(JSON.stringify({ id: 'chatcmpl-1', usage: { total_tokens: 3 } }))
    })
    const response = await nodeFetch(`${base}/v1/chat/completions`, { method: 'POST', body: '{}' })
    expect(response.status).toBe(200)
    expect(response.ok).toBe(true)
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(response.headers.get('x-upstream')).toBe('yes')
    expect(response.url).toBe(`${base}/v1/chat/completions`)
    expect(await response.json()).toEqual({ id: 'chatcmpl-1', usage: { total_tokens: 3 } })
  })

  it('resolves non-2xx answers with their status and body instead of rejecting', async () => {
    answer((_request, response) => {
      response.writeHead(429, 'Too Many Requests', {
        'content-type': 'application/json',
        'retry-after': '7',
      })
      response.end('{"error":{"message":"Slow down"}}')
    })
    const response = await nodeFetch(`${base}/limited`, { method: 'POST', body: '{}' })
    expect(response.ok).toBe(false)
    expect(response.status).toBe(429)
    expect(response.statusText).toBe('Too Many Requests')
    expect(response.headers.get('retry-after')).toBe('7')
    expect(await response.text()).toBe('{"error":{"message":"Slow down"}}')
  })

  it('streams the answer chunk by chunk, without waiting for the end', async () => {
    const gates = [deferred(), deferred()]
    answer(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('data: 1\n\n')
      await gates[0]!.promise
      response.write('data: 2\n\n')
      await gates[1]!.promise
      response.end('data: [DONE]\n\n')
    })
    const response = await nodeFetch(`${base}/stream`, { method: 'POST', body: '{}' })
    const reader = response.body!.getReader()
    expect(decoder.decode((await reader.read()).value)).toBe('data: 1\n\n')
    gates[0]!.resolve()
    const second = await reader.read()
    expect(second.value).toBeInstanceOf(Uint8Array)
    expect(decoder.decode(second.value)).toBe('data: 2\n\n')
    gates[1]!.resolve()
    expect(decoder.decode((await reader.read()).value)).toBe('data: [DONE]\n\n')
    expect((await reader.read()).done).toBe(true)
  })

  it('errors the reader with an AbortError on abort mid-stream, and closes the socket', async () => {
    const closed = deferred<boolean>()
    answer((_request, response) => {
      response.once('close', () => closed.resolve(response.writableFinished))
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('data: 1\n\n')
    })
    const controller = new AbortController()
    const response = await nodeFetch(`${base}/stream`, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    })
    const reader = response.body!.getReader()
    expect(decoder.decode((await reader.read()).value)).toBe('data: 1\n\n')
    controller.abort()
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' })
    expect(await closed.promise).toBe(false)
  })

  it('rejects with the AbortError when aborted before the answer, and closes the socket', async () => {
    const arrived = deferred()
    const closed = deferred()
    answer((_request, response) => {
      response.once('close', () => closed.resolve())
      arrived.resolve()
    })
    const controller = new AbortController()
    const pending = nodeFetch(`${base}/slow`, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    })
    await arrived.promise
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    await closed.promise
  })

  it('rejects at once with a signal that is already aborted', async () => {
    answer((_request, response) => response.end())
    const reason = new DOMException('Gone', 'AbortError')
    await expect(nodeFetch(`${base}/x`, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason)
    expect(received).toEqual([])
  })

  it('keeps a stream open through pauses longer than the idle-socket timeout', async () => {
    // The agent's timeout only closes idle pooled sockets; an upstream that thinks for longer
    // mid-stream must not be cut off (the gateway has its own idle timeout for that).
    answer(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('data: 1\n\n')
      await new Promise((resolve) => setTimeout(resolve, 400))
      response.end('data: 2\n\n')
    })
    const patient = createNodeFetch({ httpAgent: new Agent({ keepAlive: true, timeout: 100 }) })
    const response = await patient(`${base}/thinking`, { method: 'POST', body: '{}' })
    expect(await response.text()).toBe('data: 1\n\ndata: 2\n\n')
  })

  it('closes the connection when the reader cancels the body', async () => {
    const closed = deferred()
    answer((_request, response) => {
      response.once('close', () => closed.resolve())
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('data: 1\n\n')
    })
    const response = await nodeFetch(`${base}/stream`, { method: 'POST', body: '{}' })
    await response.body!.cancel()
    await closed.promise
  })

  it('holds back the upstream while the body is not read (backpressure)', async () => {
    const total = 32 * 1024 * 1024
    let finished = false
    answer(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' })
      const chunk = Buffer.alloc(1024 * 1024, 120)
      for (let sent = 0; sent < total; sent += chunk.length) {
        if (!response.write(chunk)) await new Promise((resolve) => response.once('drain', resolve))
      }
      response.end(() => (finished = true))
    })
    const response = await nodeFetch(`${base}/big`)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(finished).toBe(false)
    const reader = response.body!.getReader()
    let length = 0
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      length += read.value.byteLength
    }
    expect(length).toBe(total)
  })

  it('sends the method, headers and a string body intact', async () => {
    answer((_request, response) => response.end('ok'))
    const text = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"héllo ✓"}]}'
    const headers = new Headers({ 'content-type': 'application/json', 'x-trace': 'abc' })
    headers.set('authorization', 'Bearer sk-upstream')
    await (
      await nodeFetch(`${base}/v1/chat/completions?x=1`, { method: 'POST', headers, body: text })
    ).text()
    const [call] = received
    expect(call?.method).toBe('POST')
    expect(call?.url).toBe('/v1/chat/completions?x=1')
    expect(call?.headers['content-type']).toBe('application/json')
    expect(call?.headers['x-trace']).toBe('abc')
    expect(call?.headers['authorization']).toBe('Bearer sk-upstream')
    expect(call?.headers['content-length']).toBe(String(Buffer.byteLength(text)))
    expect(call?.headers['transfer-encoding']).toBeUndefined()
    expect(call?.body.toString('utf8')).toBe(text)
  })

  it('sends a Uint8Array body byte for byte, with headers given as a record or pairs', async () => {
    answer((_request, response) => response.end())
    const bytes = Uint8Array.from({ length: 256 }, (_, index) => index)
    await nodeFetch(`${base}/bytes`, { method: 'put', headers: { 'X-One': '1' }, body: bytes })
    await nodeFetch(`${base}/bytes`, { method: 'PATCH', headers: [['x-two', '2']], body: 'text' })
    expect(received.map((call) => call.method)).toEqual(['PUT', 'PATCH'])
    expect(received[0]?.headers['x-one']).toBe('1')
    expect(received[0]?.headers['content-length']).toBe('256')
    expect([...received[0]!.body]).toEqual([...bytes])
    expect(received[1]?.headers['x-two']).toBe('2')
    expect(received[1]?.headers['content-type']).toBe('text/plain;charset=UTF-8')
  })

  it('sends a ReadableStream body chunked', async () => {
    answer((_request, response) => response.end())
    const encoder = new TextEncoder()
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('part one, '))
        controller.enqueue(encoder.encode('part two'))
        controller.close()
      },
    })
    await nodeFetch(`${base}/stream-up`, { method: 'POST', body, duplex: 'half' } as RequestInit)
    expect(received[0]?.headers['transfer-encoding']).toBe('chunked')
    expect(received[0]?.body.toString()).toBe('part one, part two')
  })

  it('reuses one keep-alive connection for calls in sequence', async () => {
    answer((_request, response) => response.end('ok'))
    const fresh = createNodeFetch()
    const before = sockets.size
    for (let index = 0; index < 3; index += 1) {
      await (await fresh(`${base}/again`, { method: 'POST', body: '{}' })).text()
    }
    expect(sockets.size - before).toBe(1)
  })

  it('decodes a gzip body, as fetch does', async () => {
    answer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      response.end(gzipSync('{"zipped":true}'))
    })
    const response = await nodeFetch(`${base}/gzip`)
    expect(await response.json()).toEqual({ zipped: true })
  })

  it('gives a 204 answer a null body', async () => {
    answer((_request, response) => {
      response.statusCode = 204
      response.end()
    })
    const response = await nodeFetch(`${base}/empty`, { method: 'DELETE' })
    expect(response.status).toBe(204)
    expect(response.body).toBeNull()
  })

  it('follows a 307 with the same method and body, and a 303 as a GET', async () => {
    answer((request, response, body) => {
      if (request.url === '/old') {
        response.writeHead(307, { location: '/new' })
        response.end()
      } else if (request.url === '/see-other') {
        response.writeHead(303, { location: `${base}/new` })
        response.end()
      } else {
        response.end(`${request.method} ${body.toString()}`)
      }
    })
    const moved = await nodeFetch(`${base}/old`, { method: 'POST', body: 'payload' })
    expect(await moved.text()).toBe('POST payload')
    expect(moved.redirected).toBe(true)
    expect(moved.url).toBe(`${base}/new`)
    const seeOther = await nodeFetch(`${base}/see-other`, { method: 'POST', body: 'payload' })
    expect(await seeOther.text()).toBe('GET ')
    const manual = await nodeFetch(`${base}/old`, { method: 'POST', body: 'x', redirect: 'manual' })
    expect(manual.status).toBe(307)
  })

  it('rejects with TypeError: fetch failed when the upstream cannot be reached', async () => {
    const closedServer = createServer()
    await new Promise<void>((resolve) => closedServer.listen(0, '127.0.0.1', resolve))
    const port = (closedServer.address() as AddressInfo).port
    await new Promise((resolve) => closedServer.close(resolve))
    const failure = nodeFetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' })
    await expect(failure).rejects.toThrow(TypeError)
    await expect(failure).rejects.toMatchObject({
      message: 'fetch failed',
      cause: { code: 'ECONNREFUSED' },
    })
  })

  it('sends https URLs through node:https and its agent', async () => {
    const used: string[] = []
    const agent = new HttpsAgent()
    const getName = agent.getName.bind(agent)
    agent.getName = (options) => {
      used.push('https')
      return getName(options)
    }
    answer((_request, response) => response.end())
    const viaTls = createNodeFetch({ httpsAgent: agent })
    // A plain HTTP server cannot complete a TLS handshake: the call fails, but only after the
    // https agent took it.
    await expect(viaTls(`${base.replace('http:', 'https:')}/tls`)).rejects.toThrow('fetch failed')
    expect(used).toContain('https')
  })
})
