import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { timingSafeEqual } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// As a user imports them: `model-gateway` resolves to the built dist/ (npm run build first).
import { createGateway, type GatewayConfig } from 'model-gateway'
import { createNodeFetch } from 'model-gateway/node'
import { hmacHex, signedOpenAIKind, signedText } from '../../examples/upstream-kind/signed-kind'

const secret = 'partner-signing-secret-0123456789abcdef'
const keyId = 'gateway-1'
const key = 'sk-example-upstream-kind-0123456789'
const maxSkewSeconds = 300

/**
 * A fake of the partner's upstream that enforces its rules: every call carries a key id it knows,
 * a timestamp within five minutes, and the HMAC of the timestamp, method, URL and body; anything
 * else is refused with 401. Errors are `{ "message" }`.
 */
function createPartnerUpstream(): { server: Server; calls: string[] } {
  const calls: string[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const answer = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' })
        response.end(JSON.stringify(value))
      }
      const timestamp = String(request.headers['x-signature-timestamp'] ?? '')
      const signature = String(request.headers['x-signature'] ?? '')
      if (request.headers['x-signature-key'] !== keyId || signature === '') {
        calls.push('unsigned')
        return answer(401, { message: 'missing signature' })
      }
      if (Math.abs(Date.now() / 1000 - Number(timestamp)) > maxSkewSeconds) {
        calls.push('stale')
        return answer(401, { message: 'stale signature' })
      }
      const { port } = server.address() as AddressInfo
      const url = `http://127.0.0.1:${port}${request.url}`
      const method = request.method ?? ''
      const expected = await hmacHex(
        secret,
        signedText(timestamp, { url, method, headers: {}, body }),
      )
      const valid =
        expected.length === signature.length &&
        timingSafeEqual(Buffer.from(expected), Buffer.from(signature))
      if (!valid) {
        calls.push('bad signature')
        return answer(401, { message: 'bad signature' })
      }
      const { model } = JSON.parse(body) as { model: string }
      calls.push(`signed ${request.url} ${model}`)
      if (model !== 'partner-model') return answer(400, { message: `unknown model ${model}` })
      answer(200, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'signed hello' },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      })
    })
  })
  return { server, calls }
}

const partner = createPartnerUpstream()
let baseUrl = ''

beforeAll(async () => {
  await new Promise<void>((resolve) => partner.server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(partner.server.address() as AddressInfo).port}/v1`
})
afterAll(() => new Promise<void>((resolve) => partner.server.close(() => resolve())))

function gatewayWith(options: { fetch?: typeof fetch; secret?: string; now?: () => number }) {
  return createGateway({
    upstreamKinds: [signedOpenAIKind],
    groups: [
      {
        id: 'partner',
        protocol: 'openai',
        models: ['partner-model', { name: 'missing-model', upstreamModel: 'missing-model' }],
        upstreams: [
          { provider: 'signed-openai', baseUrl, keyId, secret: options.secret ?? secret },
        ],
      },
    ],
    keys: [{ key }],
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.now === undefined ? {} : { now: options.now }),
  } as GatewayConfig)
}

function chat(model: string): Request {
  return new Request('http://gateway.test/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  })
}

describe('a third-party upstream kind (examples/upstream-kind)', () => {
  it.each([
    ['the global fetch', undefined],
    ["the Node transport's direct path", createNodeFetch()],
  ])('signs every call the partner accepts, over %s', async (_name, fetch) => {
    const answer = await gatewayWith({ fetch })(chat('partner-model'))
    expect(answer.status).toBe(200)
    const body = (await answer.json()) as { choices: { message: { content: string } }[] }
    expect(body.choices[0]!.message.content).toBe('signed hello')
    expect(partner.calls.at(-1)).toBe('signed /v1/chat/completions partner-model')
  })

  it('the partner refuses an unsigned call', async () => {
    const answer = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'partner-model' }),
    })
    expect(answer.status).toBe(401)
    expect(partner.calls.at(-1)).toBe('unsigned')
  })

  it('a wrong secret or a stale clock is refused, and the client gets a 502', async () => {
    const wrong = await gatewayWith({ secret: 'another-signing-secret-0123456789abcdef' })(
      chat('partner-model'),
    )
    expect(wrong.status).toBe(502)
    expect(partner.calls.at(-1)).toBe('bad signature')
    const stale = await gatewayWith({ now: () => Date.now() - 600_000 })(chat('partner-model'))
    expect(stale.status).toBe(502)
    expect(partner.calls.at(-1)).toBe('stale')
  })

  it("maps the partner's { message } errors to OpenAI's shape", async () => {
    const answer = await gatewayWith({})(chat('missing-model'))
    expect(answer.status).toBe(400)
    const body = (await answer.json()) as { error: { message: string; type: string } }
    expect(body.error).toMatchObject({
      message: 'unknown model missing-model',
      type: 'invalid_request_error',
    })
  })

  it('refuses an entry its schema refuses, at its path', () => {
    expect(() =>
      createGateway({
        upstreamKinds: [signedOpenAIKind],
        groups: [
          {
            id: 'partner',
            protocol: 'openai',
            models: ['partner-model'],
            upstreams: [{ provider: 'signed-openai', baseUrl, keyId, secret: 'short' }],
          },
        ],
        keys: [{ key }],
      } as GatewayConfig),
    ).toThrow('groups[0].upstreams[0].secret: the signing secret has at least 32 characters')
  })
})
