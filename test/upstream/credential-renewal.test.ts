import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, createHttpProvider, type GatewayConfig } from '../../src/index'
import { createNodeFetch } from '../../src/node/index'
import { createCredentialCache } from '../../src/upstream/credentials/credential-cache'
import { fetchThrough } from '../helpers/gateway'

const key = 'sk-test-credential-renewal-0123456789'

/**
 * A token-authenticated upstream that revokes tokens: it accepts only the token it issued last,
 * and answers any other with the 401 the clouds send for an expired token. It counts the tokens it
 * issued and the calls it refused.
 */
function startTokenUpstream() {
  let issued = 0
  let refused = 0
  const server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      if (request.headers.authorization !== `Bearer token-${issued}`) {
        refused += 1
        response.writeHead(401, { 'content-type': 'application/json' })
        response.end(
          JSON.stringify({
            error: {
              code: 401,
              message: 'Request had invalid authentication credentials. The access token expired.',
              status: 'UNAUTHENTICATED',
            },
          }),
        )
        return
      }
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify({
          id: 'chatcmpl-renewed',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          choices: [
            { index: 0, message: { role: 'assistant', content: 'renewed' }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
        }),
      )
    })
  })
  return {
    server,
    issue: () => `token-${++issued}`,
    revokeAll: () => void (issued += 1),
    get issued() {
      return issued
    },
    get refused() {
      return refused
    },
  }
}

describe('a refused short-lived credential', () => {
  const upstream = startTokenUpstream()
  let baseUrl = ''
  beforeAll(async () => {
    await new Promise<void>((resolve) => upstream.server.listen(0, '127.0.0.1', resolve))
    baseUrl = `http://127.0.0.1:${(upstream.server.address() as AddressInfo).port}/v1`
  })
  afterAll(() => new Promise<void>((resolve) => upstream.server.close(() => resolve())))

  for (const transport of ['fetch', 'node'] as const) {
    it(`is renewed once and the call sent again (${transport} transport)`, async () => {
      let fetches = 0
      const cache = createCredentialCache(async () => {
        fetches += 1
        return { value: upstream.issue(), expiresAt: Date.now() + 3_600_000 }
      })
      const sentTokens = new WeakMap<object, string>()
      const provider = createHttpProvider({
        id: 'token-upstream',
        protocol: 'openai',
        baseUrl,
        ...(transport === 'node' ? { fetch: createNodeFetch() } : {}),
        secrets: () => [cache.peek() ?? ''],
        sign: async (request) => {
          const token = await cache.get()
          request.headers['authorization'] = `Bearer ${token}`
          sentTokens.set(request, token)
          return request
        },
        renewal: {
          refused: (status, body) => status === 401 && body.includes('UNAUTHENTICATED'),
          renew: (sent) => {
            const token = sentTokens.get(sent)
            if (token !== undefined) cache.invalidate(token)
          },
        },
      })
      const gateway = createGateway({
        groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [provider] }],
        keys: [{ key }],
      } as unknown as GatewayConfig)
      const client = new OpenAI({
        apiKey: key,
        baseURL: 'http://gateway.test/v1',
        fetch: fetchThrough(gateway),
      })
      const ask = () =>
        client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })

      expect((await ask()).choices[0]!.message.content).toBe('renewed')
      expect(fetches).toBe(1)
      // The upstream revokes the token the cache holds: the next burst is refused once per call,
      // renews the token once between them, and every call is answered.
      upstream.revokeAll()
      const refusedBefore = upstream.refused
      const answers = await Promise.all(Array.from({ length: 20 }, ask))
      expect(answers.every((answer) => answer.choices[0]!.message.content === 'renewed')).toBe(true)
      expect(fetches).toBe(2)
      expect(upstream.refused - refusedBefore).toBe(20)
    })
  }

  it('answers a second refusal as it came, with the token scrubbed, without a third try', async () => {
    let fetches = 0
    const provider = createHttpProvider({
      id: 'always-refused',
      protocol: 'openai',
      baseUrl,
      secrets: () => ['never-valid-token-0123456789'],
      sign: (request) => {
        request.headers['authorization'] = 'Bearer never-valid-token-0123456789'
        return request
      },
      renewal: {
        refused: (status) => status === 401,
        renew: () => void (fetches += 1),
      },
    })
    const gateway = createGateway({
      groups: [{ id: 'g', protocol: 'openai', models: ['m'], upstreams: [provider] }],
      keys: [{ key }],
    } as unknown as GatewayConfig)
    const client = new OpenAI({
      apiKey: key,
      baseURL: 'http://gateway.test/v1',
      fetch: fetchThrough(gateway),
      maxRetries: 0,
    })
    const refusedBefore = upstream.refused
    const failure = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(OpenAI.APIError)
    expect(String((failure as InstanceType<typeof OpenAI.APIError>).message)).not.toContain(
      'never-valid-token',
    )
    expect(fetches).toBe(1)
    // Two sends: the first refusal renewed, the second answered; the gateway's own retry policy
    // does not retry an authentication failure.
    expect(upstream.refused - refusedBefore).toBe(2)
  })
})
