import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  createGateway,
  type GatewayConfig,
  type GatewayHandler,
  type RequestEvent,
} from '../../src/index'
import { fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import { gatewayHandler } from '../helpers/gemini-upstream'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'
import { baseUrlOf, healthUpstreams, type HealthHost } from '../helpers/health-upstreams'

/**
 * Rests are about the model and the moment, and never refuse what nothing else can serve: a lone
 * upstream's failure for model A leaves its model B alone, a request for A while A rests still
 * reaches the upstream (the client gets the upstream's own answer), a one-off failure is retried,
 * traffic moves off an upstream only for the model it failed, and an unreachable upstream rests
 * whole. The gateway runs its defaults; upstreams are msw fakes with the vendors' rules and
 * error bodies.
 */

const upstreams = healthUpstreams()
let current: GatewayHandler
const server = setupServer(
  ...upstreams.handlers,
  gatewayHandler(gatewayUrl, () => current),
)

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => upstreams.reset())
// Each circuit these failures open is a warning line: captured and checked, not printed.
const warnings = captureGatewayWarnings()
afterAll(() => server.close())

type Family = 'openai' | 'anthropic' | 'gemini'
type ClientProtocol = 'chat' | 'responses' | 'messages' | 'gemini'

const familyOf: Record<ClientProtocol, Family> = {
  chat: 'openai',
  responses: 'openai',
  messages: 'anthropic',
  gemini: 'gemini',
}
const hostOf: Record<Family, HealthHost> = { openai: 'oa-1', anthropic: 'an-1', gemini: 'ge-1' }
/** Per family: the upstream models A and B of the lone upstream. */
const modelsOf: Record<Family, [string, string]> = {
  openai: ['gpt-4o-mini', 'gpt-4o'],
  anthropic: ['claude-sonnet-4-5', 'claude-haiku-4-5'],
  gemini: ['gemini-2.5-flash', 'gemini-2.5-pro'],
}

function gatewayFor(family: Family, hosts: HealthHost[] = [hostOf[family]]) {
  const events: RequestEvent[] = []
  const [a, b] = modelsOf[family]
  const groups: NonNullable<GatewayConfig['groups']> = [
    {
      id: 'g',
      protocol: family,
      models: [
        { name: 'A', upstreamModel: a },
        { name: 'B', upstreamModel: b },
      ],
      upstreams: hosts.map((host) => ({
        id: host,
        baseUrl: baseUrlOf(host),
        apiKey: `sk-${host}-upstream-key-0000000000000000`,
      })),
    },
  ]
  current = createGateway({ groups, keys: [{ key: keys.main }], onEvent: (e) => events.push(e) })
  return { gateway: current, events }
}

/** The upstream model a host's call asked for (in the body, or Gemini's path). */
function modelOfCall(call: { path: string; body: Record<string, any> | undefined }): string {
  if (typeof call.body?.['model'] === 'string') return call.body['model']
  return decodeURIComponent(call.path.split('/').at(-1)!).split(':')[0]!
}

/** A vendor's error for `status`, as that vendor writes it; a 429 says `retry-after: 1`. */
function vendorError(family: Family, status: number): Response {
  const headers: Record<string, string> = status === 429 ? { 'retry-after': '1' } : {}
  if (family === 'openai') {
    const type = status === 429 ? 'requests' : 'server_error'
    const code = status === 429 ? 'rate_limit_exceeded' : null
    return HttpResponse.json(
      { error: { message: `HTTP ${status} from the fake`, type, param: null, code } },
      { status, headers },
    )
  }
  if (family === 'anthropic') {
    const type =
      status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : 'api_error'
    return HttpResponse.json(
      { type: 'error', error: { type, message: `HTTP ${status} from the fake` } },
      { status, headers },
    )
  }
  const googleStatus = status === 429 ? 'RESOURCE_EXHAUSTED' : 'UNAVAILABLE'
  return HttpResponse.json(
    { error: { code: status, message: `HTTP ${status} from the fake`, status: googleStatus } },
    { status, headers },
  )
}

/** A raw HTTP request of a client protocol for a model, JSON or stream. */
function request(protocol: ClientProtocol, model: string, stream: boolean): Request {
  const init = (path: string, body: object, headers: Record<string, string> = {}) =>
    new Request(`${gatewayUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
  const hello = 'What is the capital of France?'
  switch (protocol) {
    case 'chat':
      return init(
        '/v1/chat/completions',
        { model, stream, messages: [{ role: 'user', content: hello }] },
        { authorization: `Bearer ${keys.main}` },
      )
    case 'responses':
      return init(
        '/v1/responses',
        { model, stream, input: hello },
        { authorization: `Bearer ${keys.main}` },
      )
    case 'messages':
      return init(
        '/v1/messages',
        { model, stream, max_tokens: 64, messages: [{ role: 'user', content: hello }] },
        { 'x-api-key': keys.main, 'anthropic-version': '2023-06-01' },
      )
    case 'gemini':
      return init(
        `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        { contents: [{ role: 'user', parts: [{ text: hello }] }] },
        { 'x-goog-api-key': keys.main },
      )
  }
}

/** True for an error body in the client protocol's own shape. */
function inProtocolShape(protocol: ClientProtocol, body: any): boolean {
  if (protocol === 'messages') return body?.type === 'error' && typeof body.error?.type === 'string'
  if (protocol === 'gemini') return typeof body?.error?.status === 'string'
  return typeof body?.error?.message === 'string'
}

const protocols: ClientProtocol[] = ['chat', 'responses', 'messages', 'gemini']
const cells = protocols.flatMap((protocol) =>
  [429, 503, 529].flatMap((status) =>
    [false, true].map((stream) => ({ protocol, status, stream })),
  ),
)

describe('a lone upstream with models A and B', () => {
  it.each(cells)(
    '$protocol, HTTP $status, stream $stream: B is answered at once, A still reaches the upstream and the client gets its answer',
    async ({ protocol, status, stream }) => {
      const family = familyOf[protocol]
      const host = hostOf[family]
      const [upstreamA, upstreamB] = modelsOf[family]
      const { gateway, events } = gatewayFor(family)
      // OpenAI's clients know no 529: the gateway answers them an upstream's 529 as 503.
      const answered = status === 529 && family === 'openai' ? 503 : status
      upstreams.script(host, (call) =>
        modelOfCall(call) === upstreamA ? vendorError(family, status) : undefined,
      )
      // A fails: the gateway tries its lone upstream as `retry.attempts` says, then answers the
      // upstream's own status in the client's protocol.
      const first = await gateway(request(protocol, 'A', stream))
      expect(first.status).toBe(answered)
      expect(inProtocolShape(protocol, await first.json())).toBe(true)
      const firstEnded = Date.now()
      const afterFirst = upstreams.callsTo(host).length
      expect(afterFirst).toBeGreaterThanOrEqual(2)

      // B, on the same upstream, is answered at once.
      const b = await gateway(request(protocol, 'B', stream))
      expect(b.status).toBe(200)
      await b.text()
      expect(modelOfCall(upstreams.callsTo(host).at(-1)!)).toBe(upstreamB)

      // A again, while A rests: it still reaches the upstream, and the client gets its answer.
      const before = upstreams.callsTo(host).length
      // A 429's rest lasts its `retry-after` (1 s): on a loaded machine it may have passed.
      const withinRest = status === 529 || Date.now() - firstEnded < 900
      const second = await gateway(request(protocol, 'A', stream))
      expect(second.status).toBe(answered)
      expect(inProtocolShape(protocol, await second.json())).toBe(true)
      expect(upstreams.callsTo(host).length).toBeGreaterThan(before)
      if (status === 429) expect(second.headers.get('retry-after')).toBe('1')
      if (status !== 503 && withinRest) {
        // 429 and 529 rest the pair at once: the attempt says it was made while resting.
        const attempts = events.at(-1)!.attempts!
        expect(attempts[0]).toMatchObject({ upstream: host, resting: true, status })
      }
      const health = (await gateway.health())[0]!
      expect(health.circuit).toBe('closed')
      // A 429's rest may have passed by now on a loaded machine (a 529's lasts the cooldown).
      const stillResting = status === 529 || (withinRest && Date.now() - firstEnded < 900)
      if (status !== 503 && stillResting) {
        expect(health.models?.map((pair) => pair.model)).toEqual([upstreamA])
      }
    },
    20_000,
  )

  it.each(protocols)(
    '%s: after a one-off 429, the request is retried on the lone upstream and answered, and so is the next',
    async (protocol) => {
      const family = familyOf[protocol]
      const host = hostOf[family]
      const { gateway, events } = gatewayFor(family)
      let failures = 0
      upstreams.script(host, () => (failures++ === 0 ? vendorError(family, 429) : undefined))
      const first = await gateway(request(protocol, 'A', false))
      expect(first.status).toBe(200)
      await first.text()
      expect(upstreams.callsTo(host)).toHaveLength(2)
      expect(events.at(-1)!.attempts!.map((attempt) => attempt.status ?? 200)).toEqual([429, 200])
      const next = await gateway(request(protocol, 'A', true))
      expect(next.status).toBe(200)
      await next.text()
      expect(upstreams.callsTo(host)).toHaveLength(3)
    },
    20_000,
  )
})

describe('the official SDKs with their default settings', () => {
  it('OpenAI, Anthropic and Gemini: a one-off 429 for A is invisible, B was never held back', async () => {
    for (const family of ['openai', 'anthropic', 'gemini'] as const) {
      const host = hostOf[family]
      const [upstreamA] = modelsOf[family]
      const { gateway } = gatewayFor(family)
      let failed = false
      upstreams.script(host, (call) => {
        if (modelOfCall(call) !== upstreamA || failed) return undefined
        failed = true
        return vendorError(family, 429)
      })
      const ask = async (model: string) => {
        if (family === 'openai') {
          const client = new OpenAI({
            apiKey: keys.main,
            baseURL: `${gatewayUrl}/v1`,
            fetch: fetchThrough(gateway),
          })
          const answer = await client.chat.completions.create({
            model,
            messages: [{ role: 'user', content: 'What is the capital of France?' }],
          })
          return answer.choices[0]!.message.content
        }
        if (family === 'anthropic') {
          const client = new Anthropic({
            apiKey: keys.main,
            baseURL: gatewayUrl,
            fetch: fetchThrough(gateway),
          })
          const answer = await client.messages.create({
            model,
            max_tokens: 64,
            messages: [{ role: 'user', content: 'What is the capital of France?' }],
          })
          return answer.content.length > 0 ? 'answered' : ''
        }
        const client = new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: gatewayUrl } })
        return (await client.models.generateContent({ model, contents: 'Hi' })).text
      }
      expect(await ask('A')).toBeTruthy()
      expect(await ask('B')).toBeTruthy()
      expect(await ask('A')).toBeTruthy()
      upstreams.reset()
    }
  }, 30_000)
})

describe('two upstreams', () => {
  it('one answering 429 for A only: A moves to the other upstream, B keeps using both', async () => {
    const { gateway, events } = gatewayFor('openai', ['oa-1', 'oa-2'])
    upstreams.script('oa-1', (call) =>
      modelOfCall(call) === 'gpt-4o-mini' ? vendorError('openai', 429) : undefined,
    )
    // Until oa-1 has answered A once (either upstream may be picked first).
    for (let tries = 0; upstreams.callsTo('oa-1').length === 0 && tries < 50; tries += 1) {
      await (await gateway(request('chat', 'A', false))).text()
    }
    const restedAt = upstreams.callsTo('oa-1').length
    for (let index = 0; index < 10; index += 1) {
      const answer = await gateway(request('chat', 'A', false))
      expect(answer.status).toBe(200)
      await answer.text()
    }
    expect(upstreams.callsTo('oa-1')).toHaveLength(restedAt)
    expect(events.slice(-10).every((event) => event.provider === 'oa-2')).toBe(true)
    for (let index = 0; index < 30; index += 1) {
      const answer = await gateway(request('chat', 'B', false))
      expect(answer.status).toBe(200)
      await answer.text()
    }
    const providers = new Set(events.slice(-30).map((event) => event.provider))
    expect(providers).toEqual(new Set(['oa-1', 'oa-2']))
  })

  it('a connect-refused upstream rests whole: the other takes its traffic, for every model', async () => {
    const { gateway, events } = gatewayFor('openai', ['oa-1', 'oa-2'])
    upstreams.script('oa-1', () => HttpResponse.error())
    for (let tries = 0; upstreams.callsTo('oa-1').length < 5 && tries < 100; tries += 1) {
      const answer = await gateway(request('chat', tries % 2 === 0 ? 'A' : 'B', false))
      expect(answer.status).toBe(200)
      await answer.text()
    }
    const health = (await gateway.health()).find((entry) => entry.upstreamId === 'oa-1')!
    expect(health.circuit).toBe('open')
    const refusedCalls = upstreams.callsTo('oa-1').length
    for (const model of ['A', 'B', 'A', 'B']) {
      const answer = await gateway(request('chat', model, false))
      expect(answer.status).toBe(200)
      await answer.text()
    }
    expect(upstreams.callsTo('oa-1')).toHaveLength(refusedCalls)
    expect(events.slice(-4).every((event) => event.provider === 'oa-2')).toBe(true)
    expect(warnings.lines).toContainEqual(
      expect.stringMatching(
        /^\[model-gateway\] upstream g\/oa-1: circuit open for [\d.]+ s \(\d+ failures in a row, no answer\)\.$/,
      ),
    )
  })
})

describe('a lone connect-refused upstream', () => {
  it.each(protocols)(
    '%s: requests are still attempted and fail fast with the connect error in the client protocol',
    async (protocol) => {
      const family = familyOf[protocol]
      const host = hostOf[family]
      const { gateway } = gatewayFor(family)
      upstreams.script(host, () => HttpResponse.error())
      for (let index = 0; index < 4; index += 1) {
        const before = upstreams.callsTo(host).length
        const started = Date.now()
        const answer = await gateway(request(protocol, index % 2 === 0 ? 'A' : 'B', false))
        expect([502, 503]).toContain(answer.status)
        expect(inProtocolShape(protocol, await answer.json())).toBe(true)
        expect(upstreams.callsTo(host).length).toBeGreaterThan(before)
        expect(Date.now() - started).toBeLessThan(5_000)
      }
      expect((await gateway.health())[0]!.circuit).toBe('open')
      expect(warnings.lines).toContainEqual(
        expect.stringContaining(`[model-gateway] upstream g/${host}: circuit open for `),
      )
    },
    30_000,
  )
})

describe('count_tokens', () => {
  it('fails over across the group’s upstreams like generation', async () => {
    const { gateway } = gatewayFor('anthropic', ['an-1', 'an-2'])
    upstreams.script('an-1', () => vendorError('anthropic', 529))
    upstreams.script('an-2', () => vendorError('anthropic', 529))
    let answered = 0
    for (let index = 0; index < 4; index += 1) {
      // Only the upstream tried first fails: the other counts.
      const first = index % 2 === 0 ? 'an-1' : 'an-2'
      upstreams.script(first === 'an-1' ? 'an-2' : 'an-1', undefined)
      upstreams.script(first, () => vendorError('anthropic', 529))
      const answer = await gateway(
        new Request(`${gatewayUrl}/v1/messages/count_tokens`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-api-key': keys.main,
            'anthropic-version': '2023-06-01',
          },
          body: JSON.stringify({ model: 'A', messages: [{ role: 'user', content: 'Hi' }] }),
        }),
      )
      expect(answer.status).toBe(200)
      expect(await answer.json()).toEqual({ input_tokens: 42 })
      answered += 1
    }
    expect(answered).toBe(4)
  })
})
