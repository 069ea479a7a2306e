import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { createNodeFetch } from '../../src/node/index'

/**
 * Header names are the upstream's (and, forwarded, the client's) text: `__proto__` and
 * `constructor` are valid header names. `createNodeFetch` builds the request's header record on an
 * object without a prototype and reads answers into `Headers`, so such names stay headers and
 * never reach `Object.prototype`.
 */
let url: string
let received: { raw: string[] } | undefined
const server = createServer((request, response) => {
  received = { raw: request.rawHeaders }
  request.resume()
  request.on('end', () => {
    response.writeHead(
      200,
      [
        ['content-type', 'application/json'],
        ['__proto__', 'from-upstream'],
        ['constructor', 'also-upstream'],
        ['toString', 'x'],
      ].flat(),
    )
    response.end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o-mini',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    )
  })
})
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('createNodeFetch and prototype-named headers', () => {
  it('sends and reads __proto__ and constructor as ordinary headers', async () => {
    const fetch = createNodeFetch()
    // JSON.parse makes `__proto__` an own member, as a parsed header map from anywhere would.
    const headers = JSON.parse('{"__proto__":"to-upstream","constructor":"c","x-plain":"1"}')
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers,
      body: '{}',
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('__proto__')).toBe('from-upstream')
    expect(response.headers.get('constructor')).toBe('also-upstream')
    expect(response.headers.get('tostring')).toBe('x')
    // Read from the raw list: Node's own `headers` object cannot show a `__proto__` member.
    const sent = new Map<string, string>()
    for (let index = 0; index + 1 < received!.raw.length; index += 2) {
      sent.set(received!.raw[index]!.toLowerCase(), received!.raw[index + 1]!)
    }
    expect(sent.get('__proto__')).toBe('to-upstream')
    expect(sent.get('constructor')).toBe('c')
    expect(sent.get('x-plain')).toBe('1')
    expect(({} as Record<string, unknown>)['to-upstream']).toBeUndefined()
    expect(Object.getPrototypeOf({})).toBe(Object.prototype)
    await response.text()
  })

  it('lets a gateway relay an upstream answer with such headers', async () => {
    const gateway = createGateway({
      fetch: createNodeFetch(),
      groups: [
        {
          id: 'gpt',
          protocol: 'openai',
          models: ['gpt-4o-mini'],
          upstreams: [{ baseUrl: `${url}/v1`, apiKey: 'sk-upstream-proto-0123456789' }],
        },
      ],
      keys: [{ key: 'sk-proto-test-0123456789abcdefABCDEF' }],
    })
    const response = await gateway(
      new Request('http://gateway.test/v1/chat/completions', {
        method: 'POST',
        headers: {
          authorization: 'Bearer sk-proto-test-0123456789abcdefABCDEF',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
      }),
    )
    expect(response.status).toBe(200)
    expect(
      ((await response.json()) as { usage: { total_tokens: number } }).usage.total_tokens,
    ).toBe(2)
  })
})
