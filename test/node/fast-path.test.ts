import { request as httpRequest } from 'node:http'
import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { createGateway, hashKey } from '../../src/index'
import { nodeHashKey, serveGateway } from '../../src/node/index'
import { keys } from '../helpers/gateway'

const served: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(served.splice(0).map((server) => server.close()))
})

function demoConfig() {
  return {
    groups: [
      {
        id: 'demo',
        protocol: 'openai' as const,
        models: ['demo-echo'],
        upstreams: [{ provider: 'mock' as const }],
      },
    ],
    keys: [{ key: keys.main }],
  }
}

/** One raw exchange: the status, the headers as sent and the body. */
function post(
  url: string,
  body: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${url}/v1/chat/completions`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${keys.main}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (incoming) => {
        let text = ''
        incoming.setEncoding('utf8')
        incoming.on('data', (chunk: string) => (text += chunk))
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text }),
        )
      },
    )
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

describe('the Node fast path', () => {
  it('hashes with node:crypto exactly as Web Crypto does', async () => {
    for (const secret of [keys.main, 'sk-ünïcödé-0123456789abcdef', `sk-${'x'.repeat(500)}`]) {
      expect(nodeHashKey(secret)).toBe(await hashKey(secret))
    }
  })

  it('answers JSON with a content-length, not chunked, and the same body the WHATWG handler gives', async () => {
    const gateway = createGateway(demoConfig())
    const server = await serveGateway(gateway, { port: 0 })
    served.push(server)
    const body = JSON.stringify({ model: 'demo-echo', messages: [{ role: 'user', content: 'hi' }] })
    const answer = await post(server.url, body)
    expect(answer.status).toBe(200)
    expect(answer.headers['transfer-encoding']).toBeUndefined()
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body))
    expect(answer.headers['content-type']).toBe('application/json')
    expect(answer.headers['x-request-id']).toMatch(/^req_/)
    const direct = await createGateway(demoConfig())(
      new Request('http://localhost/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
        body,
      }),
    )
    const viaWhatwg = (await direct.json()) as { choices: unknown }
    expect((JSON.parse(answer.body) as { choices: unknown }).choices).toEqual(viaWhatwg.choices)
  })

  it("keeps the config's own hashKey under serveGateway", async () => {
    const hashed: string[] = []
    const gateway = createGateway({
      ...demoConfig(),
      hashKey: (secret) => {
        hashed.push(secret.slice(0, 3))
        return nodeHashKey(secret)
      },
    })
    const server = await serveGateway(gateway, { port: 0 })
    served.push(server)
    const before = hashed.length
    const client = new OpenAI({ apiKey: keys.main, baseURL: `${server.url}/v1`, maxRetries: 0 })
    const completion = await client.chat.completions.create({
      model: 'demo-echo',
      messages: [{ role: 'user', content: 'hashed' }],
    })
    expect(completion.choices[0]?.message.content).toBe('You said: hashed')
    expect(hashed.length).toBe(before + 1)
  })

  it('streams SSE whose frames arrive whole and end with [DONE]', async () => {
    const gateway = createGateway(demoConfig())
    const server = await serveGateway(gateway, { port: 0 })
    served.push(server)
    const body = JSON.stringify({
      model: 'demo-echo',
      stream: true,
      messages: [{ role: 'user', content: 'one two three' }],
    })
    const answer = await post(server.url, body)
    expect(answer.status).toBe(200)
    expect(answer.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(answer.headers['transfer-encoding']).toBe('chunked')
    const frames = answer.body.split('\n\n').filter((frame) => frame !== '')
    expect(frames.every((frame) => frame.startsWith('data: '))).toBe(true)
    expect(frames.at(-1)).toBe('data: [DONE]')
  })
})
