import type { ServerResponse } from 'node:http'
import OpenAI from 'openai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createGateway, createMemoryUsageMeter, type RequestEvent } from '../../src/index'
import { serveGateway, type ServedGateway } from '../../src/node/index'
import { keys } from '../helpers/gateway'
import { openSocket, parseAnswer, rawRequest } from '../helpers/raw-http'

const served: ServedGateway[] = []
afterEach(async () => {
  await Promise.all(served.splice(0).map((server) => server.close()))
})

/** The demo gateway (mock upstream) served on a free port, with its events and usage records. */
async function serve(options: { chunkDelayMs?: number; requestTimeoutMs?: number } = {}) {
  const events: RequestEvent[] = []
  const meter = createMemoryUsageMeter()
  const gateway = createGateway({
    groups: [
      {
        id: 'demo',
        protocol: 'openai',
        models: ['demo-echo'],
        upstreams: [{ provider: 'mock', chunkDelayMs: options.chunkDelayMs ?? 0 }],
      },
      {
        id: 'claude',
        protocol: 'anthropic',
        models: ['claude-echo'],
        upstreams: [{ provider: 'mock' }],
      },
    ],
    keys: [{ key: keys.main }],
    maxBodyBytes: 1024 * 1024,
    usageMeter: meter,
    onEvent: (event) => events.push(event),
  })
  const server = await serveGateway(gateway, {
    port: 0,
    ...(options.requestTimeoutMs === undefined
      ? {}
      : { requestTimeoutMs: options.requestTimeoutMs }),
  })
  served.push(server)
  return { ...server, events, meter }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('serveGateway: the time to receive a request', () => {
  it('cuts off a client that dribbles its body one byte every 2 s', async () => {
    const { url, events } = await serve({ requestTimeoutMs: 1_000 })
    const socket = await openSocket(url)
    let received = ''
    let closed = false
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()))
    socket.on('close', () => (closed = true))
    socket.on('error', () => undefined)
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${keys.main}\r\n` +
        'content-type: application/json\r\ncontent-length: 1000\r\n\r\n',
    )
    let sent = 0
    // Without a finite requestTimeout this would go on for 1000 bytes, over half an hour.
    while (!closed && sent < 5) {
      socket.write('{')
      sent += 1
      await sleep(2_000)
    }
    expect(closed).toBe(true)
    expect(sent).toBeLessThanOrEqual(2)
    expect(parseAnswer(received).status).toBe(408)
    await vi.waitFor(() => expect(events).toHaveLength(1))
    // The gateway was still reading the body: the request ends as the client's abort.
    expect(events[0]).toMatchObject({ route: 'chat.completions', outcome: 'aborted', status: 499 })
  }, 15_000)

  it('never limits the answer: a stream slower than the request timeout runs to its end', async () => {
    const { url, meter } = await serve({ requestTimeoutMs: 1_000, chunkDelayMs: 300 })
    const client = new OpenAI({ apiKey: keys.main, baseURL: `${url}/v1`, maxRetries: 0 })
    const started = Date.now()
    let text = ''
    for await (const chunk of await client.chat.completions.create({
      model: 'demo-echo',
      stream: true,
      messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten' }],
    })) {
      text += chunk.choices[0]?.delta.content ?? ''
    }
    expect(text).toBe('You said: one two three four five six seven eight nine ten')
    // Over three times the request timeout, and the stream was not cut.
    expect(Date.now() - started).toBeGreaterThan(3_000)
    expect(meter.records()[0]).toMatchObject({ outcome: 'ok', stream: true })
  }, 15_000)
})

describe('toNodeHandler: an answer given before the body was read closes the connection', () => {
  /**
   * Starts a 500 MB upload, as fast as the socket takes it, and measures how many body bytes the
   * server reads after it has written its answer.
   */
  async function upload(url: string, server: ServedGateway['server'], head: string) {
    let read = 0
    let readAtAnswer: number | undefined
    server.once('connection', (socket) =>
      socket.on('data', (chunk: Buffer) => (read += chunk.length)),
    )
    server.once('request', (_request, response: ServerResponse) =>
      response.once('finish', () => (readAtAnswer = read)),
    )
    const socket = await openSocket(url)
    let answer = ''
    let closed = false
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()))
    socket.on('close', () => (closed = true))
    socket.on('error', () => undefined)
    socket.write(head)
    const total = 500 * 1024 * 1024
    const chunk = Buffer.alloc(64 * 1024, 'a')
    const chunked = head.includes('transfer-encoding: chunked')
    const frame = chunked
      ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
      : chunk
    let sent = 0
    const started = Date.now()
    while (!closed && sent < total && Date.now() - started < 10_000) {
      sent += chunk.length
      if (!socket.write(frame)) {
        await Promise.race([
          new Promise((resolve) => socket.once('drain', resolve)),
          new Promise((resolve) => socket.once('close', resolve)),
          sleep(2_000),
        ])
      }
    }
    await vi.waitFor(() => expect(closed).toBe(true), { timeout: 3_000 })
    expect(readAtAnswer).toBeDefined()
    return { answer: parseAnswer(answer), sent, readAfterAnswer: read - readAtAnswer! }
  }

  const head = (framing: string) =>
    `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${keys.main}\r\n` +
    `content-type: application/json\r\n${framing}\r\n\r\n`

  it.each([
    ['a content-length over the limit', head(`content-length: ${500 * 1024 * 1024}`)],
    ['a chunked body that grows past the limit', head('transfer-encoding: chunked')],
  ])(
    'answers 413 to %s, closes the connection and reads almost nothing more',
    async (_, text) => {
      const { url, server } = await serve()
      const result = await upload(url, server, text)
      expect(result.answer.status).toBe(413)
      expect(result.answer.headers['connection']).toBe('close')
      expect(JSON.parse(result.answer.body)).toMatchObject({
        error: { type: 'invalid_request_error', code: 'request_too_large' },
      })
      expect(result.sent).toBeLessThan(64 * 1024 * 1024)
      // What was already in flight, at most: the upload never keeps streaming in.
      expect(result.readAfterAnswer).toBeLessThan(1024 * 1024)
    },
    20_000,
  )

  it('closes the connection after a 401 answered without reading the body', async () => {
    const { url, server } = await serve()
    const text = head(`content-length: ${500 * 1024 * 1024}`).replace(
      keys.main,
      'sk-unknown-0123456789abcdef',
    )
    const result = await upload(url, server, text)
    expect(result.answer.status).toBe(401)
    expect(result.answer.headers['connection']).toBe('close')
    expect(result.readAfterAnswer).toBeLessThan(1024 * 1024)
  }, 20_000)

  it('keeps the connection alive when the body was read', async () => {
    const { url } = await serve()
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'unknown-model', messages: [{ role: 'user', content: 'x' }] }),
    })
    expect(response.status).toBe(404)
    expect(response.headers.get('connection')).toBe('keep-alive')
  })

  it('gets the openai SDK its 413 for an oversized body', async () => {
    const { url } = await serve()
    const client = new OpenAI({ apiKey: keys.main, baseURL: `${url}/v1`, maxRetries: 0 })
    const error = await client.chat.completions
      .create({
        model: 'demo-echo',
        messages: [{ role: 'user', content: 'x'.repeat(4 * 1024 * 1024) }],
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect(error).toMatchObject({ status: 413, code: 'request_too_large' })
  })
})

describe('toNodeHandler: a request the bridge cannot turn into a URL', () => {
  const request = (path: string, host: string, extra = '') =>
    `POST ${path} HTTP/1.1\r\nhost: ${host}\r\nauthorization: Bearer ${keys.main}\r\n` +
    `content-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n${extra}\r\n{}`

  it.each(['bad host', 'a/b', 'evil@x', 'x?y', 'bücher.de', '127.0.0.1:99999', ''])(
    'answers 400 in the route protocol for the Host %j, and logs it',
    async (host) => {
      const { url, events } = await serve()
      const openai = await rawRequest(url, request('/v1/chat/completions', host))
      expect(openai.status).toBe(400)
      expect(JSON.parse(openai.body)).toEqual({
        error: {
          message: 'The request URL is malformed: check the Host header.',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      })
      const anthropic = await rawRequest(url, request('/v1/messages', host))
      expect(anthropic.status).toBe(400)
      expect(JSON.parse(anthropic.body)).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error' },
      })
      const gemini = await rawRequest(
        url,
        request('/v1beta/models/demo-echo:generateContent', host),
      )
      expect(gemini.status).toBe(400)
      expect(JSON.parse(gemini.body)).toMatchObject({
        error: { code: 400, status: 'INVALID_ARGUMENT' },
      })
      expect(gemini.headers['x-request-id']).toMatch(/^req_/)
      expect(events.map((event) => [event.status, event.route, event.path])).toEqual([
        [400, 'chat.completions', '/v1/chat/completions'],
        [400, 'messages', '/v1/messages'],
        [400, 'gemini.generate', '/v1beta/models/demo-echo:generateContent'],
      ])
    },
  )

  it('answers a method fetch refuses (TRACE) 405 with Allow, not 500', async () => {
    const { url } = await serve()
    const answer = await rawRequest(
      url,
      `TRACE /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${keys.main}\r\nconnection: close\r\n\r\n`,
    )
    expect(answer.status).toBe(405)
    expect(answer.headers['allow']).toBe('GET, HEAD')
  })

  it('serves a request with a valid Host as usual', async () => {
    const { url } = await serve()
    const answer = await rawRequest(
      url,
      `GET /v1/models HTTP/1.1\r\nhost: gateway.internal_lan:8787\r\nauthorization: Bearer ${keys.main}\r\nconnection: close\r\n\r\n`,
    )
    expect(answer.status).toBe(200)
  })
})
