import { Agent, createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDirectFetch } from '../../src/node/node-direct-fetch'
import { createLightAbort } from '../../src/internal/call-signal'

let server: Server
let port: number
const seen: Array<{ url: string | undefined; headers: IncomingHttpHeaders; body: string }> = []
beforeAll(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      seen.push({ url: request.url, headers: request.headers, body })
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end('{"ok":true}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
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
})
