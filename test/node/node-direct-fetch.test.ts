import {
  Agent,
  createServer,
  type ClientRequest,
  type IncomingHttpHeaders,
  type Server,
} from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDirectFetch } from '../../src/node/transport/node-direct-fetch'
import { createLightAbort } from '../../src/internal/call-signal'

let server: Server
let port: number
const seen: Array<{
  url: string | undefined
  headers: IncomingHttpHeaders
  rawHeaders: string[]
  body: string
}> = []
beforeAll(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      seen.push({
        url: request.url,
        headers: request.headers,
        rawHeaders: request.rawHeaders,
        body,
      })
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end('{"ok":true}')
    })
  })
  // Both stacks (`::` takes IPv4 too), so that a call to [::1] reaches it as well.
  await new Promise<void>((resolve) => server.listen(0, '::', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('createDirectFetch', () => {
  it('sends each call to its URL, path, query and credentials included, the URL parsed once', async () => {
    const agent = new Agent({ keepAlive: true })
    const parsed: string[] = []
    const direct = createDirectFetch((url) => (parsed.push(url.href), agent))
    const call = (url: string, body: string) =>
      direct(url, {
        method: 'POST',
        headers: { 'x-test': body },
        body,
        signal: createLightAbort().signal,
      })
    const base = `http://127.0.0.1:${port}`
    for (const body of ['one', 'two']) {
      const answer = await call(`${base}/v1beta/models/m%2F1:stream?alt=sse`, body)
      expect(answer.status).toBe(200)
      expect(await answer.text!(1024, () => new Error('too large'))).toBe('{"ok":true}')
    }
    await call(`http://user%40x:p%3Ass@127.0.0.1:${port}/v1/chat/completions`, 'three')
    agent.destroy()
    expect(parsed).toHaveLength(2)
    expect(seen.map((request) => request.url)).toEqual([
      '/v1beta/models/m%2F1:stream?alt=sse',
      '/v1beta/models/m%2F1:stream?alt=sse',
      '/v1/chat/completions',
    ])
    expect(seen.map((request) => request.body)).toEqual(['one', 'two', 'three'])
    expect(seen[1]!.headers['x-test']).toBe('two')
    expect(seen[1]!.headers['content-length']).toBe('3')
    expect(seen[2]!.headers.authorization).toBe(
      `Basic ${Buffer.from('user@x:p:ss').toString('base64')}`,
    )
  })

  it('writes the headers as Node would from a record: host, type, length, each once', async () => {
    const agent = new Agent({ keepAlive: true })
    const direct = createDirectFetch(() => agent)
    const send = (url: string, headers: Record<string, string>, body = 'é!') =>
      direct(url, { method: 'POST', headers, body, signal: createLightAbort().signal })
    seen.length = 0
    await send(`http://127.0.0.1:${port}/a`, { 'x-one': '1', 'content-length': '999' })
    await send(`http://localhost:${port}/b`, {
      'content-type': 'application/json',
      authorization: 'Bearer sk-upstream',
      host: 'upstream.example',
    })
    await send(`http://u:p@[::1]:${port}/c`, {})
    const bad = send(`http://127.0.0.1:${port}/d`, { 'x-bad': 'a\r\nx-injected: 1' })
    await expect(bad).rejects.toThrow('fetch failed')
    agent.destroy()
    const [first, second] = seen
    // The body's length in bytes, whatever the record said; a type when it named none.
    expect(first!.headers).toMatchObject({
      'x-one': '1',
      'content-length': '3',
      'content-type': 'text/plain;charset=UTF-8',
      host: `127.0.0.1:${port}`,
      connection: 'keep-alive',
    })
    // Each name once: the record's own host and authorization win over the URL's.
    const names = second!.rawHeaders
      .filter((_, index) => index % 2 === 0)
      .map((name) => name.toLowerCase())
    expect(new Set(names).size).toBe(names.length)
    expect(second!.headers).toMatchObject({
      'content-type': 'application/json',
      authorization: 'Bearer sk-upstream',
      host: 'upstream.example',
    })
    // IPv6 in brackets with the port, and the URL's credentials.
    expect(seen[2]!.headers.host).toBe(`[::1]:${port}`)
    expect(seen[2]!.headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`)
    expect(seen.some((request) => request.url === '/d')).toBe(false)
  })

  it("leaves a caller's agent the headers as Node stores them, so it may add its own", async () => {
    // A proxy agent sets or rewrites headers in addRequest, after a flat list would be written.
    type AddRequest = (request: ClientRequest, options: object) => void
    const agent = new Agent({ keepAlive: true }) as Agent & { addRequest: AddRequest }
    const addRequest = agent.addRequest.bind(agent)
    agent.addRequest = (request, options) => {
      request.setHeader('x-proxy', 'seen')
      addRequest(request, options)
    }
    const direct = createDirectFetch(() => agent)
    seen.length = 0
    const answer = await direct(`http://u:p@127.0.0.1:${port}/proxied`, {
      method: 'POST',
      headers: { 'x-one': '1' },
      body: 'body',
      signal: createLightAbort().signal,
    })
    expect(answer.status).toBe(200)
    agent.destroy()
    expect(seen[0]!.headers).toMatchObject({
      'x-proxy': 'seen',
      'x-one': '1',
      'content-length': '4',
      host: `127.0.0.1:${port}`,
      authorization: `Basic ${Buffer.from('u:p').toString('base64')}`,
    })
  })

  it('names the TLS server after a host header the call sets, as Node does', async () => {
    const names: unknown[] = []
    const agent = new HttpsAgent()
    const record = (options: { servername?: unknown }, callback: (error: Error) => void) => {
      names.push(options.servername)
      callback(new Error('no TLS server here'))
      return undefined
    }
    agent.createConnection = record as unknown as HttpsAgent['createConnection']
    const direct = createDirectFetch(
      () => agent,
      () => true,
    )
    const send = (headers: Record<string, string>) =>
      direct('https://127.0.0.1:9/v1/chat/completions', {
        method: 'POST',
        headers,
        body: '{}',
        signal: createLightAbort().signal,
      })
    await expect(send({ host: 'api.example.com' })).rejects.toThrow('fetch failed')
    await expect(send({})).rejects.toThrow('fetch failed')
    expect(names[0]).toBe('api.example.com')
    // An address is no server name (RFC 6066): Node sends none.
    expect(names[1]).toBe('')
  })
})
