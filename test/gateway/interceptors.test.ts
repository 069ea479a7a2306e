import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  GatewayError,
  jsonTextAnswer,
  sseAnswer,
  type CallInterceptor,
  type GatewayConfig,
  type InterceptedCall,
  type RequestEvent,
  type SettledCall,
} from '../../src/index'
import { buildGateway, fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import { gatewayHandler } from '../helpers/gemini-upstream'

/** A toy cache: exact bodies per key and route, JSON and stream text as the client got them. */
function toyCache(): CallInterceptor & { entries: Map<string, string> } {
  const entries = new Map<string, string>()
  const keyOf = new WeakMap<InterceptedCall, string>()
  return {
    name: 'toy-cache',
    entries,
    captureStream: 1_000_000,
    before(call) {
      const key = JSON.stringify([call.key.id, call.route, call.protocol, call.group, call.body])
      keyOf.set(call, key)
      const hit = entries.get(key)
      if (hit === undefined) return undefined
      // A stream is replayed an event at a time, as it was sent.
      return call.stream ? sseAnswer(hit.split(/(?<=\n\n)/)) : jsonTextAnswer(hit)
    },
    settled(call, settled) {
      if (settled.answeredBy !== undefined || settled.outcome !== 'ok') return
      if (settled.body !== undefined) entries.set(keyOf.get(call)!, settled.body)
    },
  }
}

type Seen = { call: InterceptedCall; settled: SettledCall }

/** An interceptor that records every settled call. */
function recorder(name = 'recorder', captureStream = 0): CallInterceptor & { seen: Seen[] } {
  const seen: Seen[] = []
  return {
    name,
    seen,
    captureStream,
    settled: (call, settled) => void seen.push({ call, settled }),
  }
}

const groups: GatewayConfig['groups'] = [
  {
    id: 'o',
    protocol: 'openai',
    models: ['gpt-mock', 'text-embedding-3-small'],
    upstreams: [{ provider: 'mock' }],
  },
  { id: 'a', protocol: 'anthropic', models: ['claude-mock'], upstreams: [{ provider: 'mock' }] },
  { id: 'g', protocol: 'gemini', models: ['gemini-mock'], upstreams: [{ provider: 'mock' }] },
  {
    id: 'slow',
    protocol: 'openai',
    models: ['slow-mock'],
    upstreams: [{ provider: 'mock', reply: 'one two three four five six', chunkDelayMs: 30 }],
  },
]

let built: ReturnType<typeof buildGateway>
const server = setupServer(gatewayHandler(gatewayUrl, () => built.gateway))
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => server.close())

function gatewayWith(interceptors: CallInterceptor[]) {
  built = buildGateway({
    groups,
    keys: [
      { key: keys.main, name: 'main' },
      { key: keys.gptOnly, name: 'other' },
    ],
    interceptors,
  })
  return built
}

const openai = () =>
  new OpenAI({
    apiKey: keys.main,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(built.gateway),
    maxRetries: 0,
  })
const anthropic = () =>
  new Anthropic({
    apiKey: keys.main,
    baseURL: gatewayUrl,
    fetch: fetchThrough(built.gateway),
    maxRetries: 0,
  })
const genai = () => new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: gatewayUrl } })

/** Each client protocol through its official SDK: a JSON answer's text and a stream's. */
const clients: Record<string, { json(): Promise<string>; stream(): Promise<string> }> = {
  openai: {
    async json() {
      const answer = await openai().chat.completions.create({
        model: 'gpt-mock',
        messages: [{ role: 'user', content: 'cache me' }],
      })
      return answer.choices[0]!.message.content ?? ''
    },
    async stream() {
      let text = ''
      const stream = await openai().chat.completions.create({
        model: 'gpt-mock',
        messages: [{ role: 'user', content: 'cache my stream' }],
        stream: true,
      })
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
      return text
    },
  },
  anthropic: {
    async json() {
      const answer = await anthropic().messages.create({
        model: 'claude-mock',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'cache me' }],
      })
      return answer.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    },
    async stream() {
      let text = ''
      const stream = await anthropic().messages.create({
        model: 'claude-mock',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'cache my stream' }],
        stream: true,
      })
      for await (const event of stream) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
          text += event.delta.text
        }
      }
      return text
    },
  },
  gemini: {
    async json() {
      return (await genai().models.generateContent({ model: 'gemini-mock', contents: 'cache me' }))
        .text!
    },
    async stream() {
      let text = ''
      const stream = await genai().models.generateContentStream({
        model: 'gemini-mock',
        contents: 'cache my stream',
      })
      for await (const part of stream) text += part.text ?? ''
      return text
    },
  },
  responses: {
    async json() {
      const answer = await openai().responses.create({ model: 'gpt-mock', input: 'cache me' })
      return answer.output_text
    },
    async stream() {
      let text = ''
      const stream = await openai().responses.create({
        model: 'gpt-mock',
        input: 'cache my stream',
        stream: true,
      })
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') text += event.delta
      }
      return text
    },
  },
}

/** The request events of the calls, once every answer has ended. */
const calls = () => built.events.filter((event) => event.route !== 'models')
const upstreamCalls = (events: RequestEvent[]) =>
  events.filter((event) => (event.attempts?.length ?? 0) > 0).length

describe('a toy cache interceptor, through every client SDK', () => {
  let cache: ReturnType<typeof toyCache>
  beforeEach(() => {
    cache = toyCache()
    gatewayWith([cache])
  })

  for (const [protocol, client] of Object.entries(clients)) {
    it(`${protocol}: a repeated JSON request is answered from the cache, the upstream called once`, async () => {
      const first = await client.json()
      const second = await client.json()
      expect(first).not.toBe('')
      expect(second).toBe(first)
      const events = calls()
      expect(events).toHaveLength(2)
      expect(upstreamCalls(events)).toBe(1)
      expect(events[0]!.interceptedBy).toBeUndefined()
      expect(events[0]!.usage).toBeDefined()
      // A hit has its event, but nothing is metered.
      expect(events[1]).toMatchObject({ status: 200, outcome: 'ok', interceptedBy: 'toy-cache' })
      expect(events[1]!.usage).toBeUndefined()
      expect(events[1]!.attempts).toBeUndefined()
    })

    it(`${protocol}: a repeated stream is replayed from the cache, the upstream called once`, async () => {
      const first = await client.stream()
      const second = await client.stream()
      expect(first).not.toBe('')
      expect(second).toBe(first)
      const events = calls()
      expect(events).toHaveLength(2)
      expect(upstreamCalls(events)).toBe(1)
      expect(events[1]).toMatchObject({
        stream: true,
        status: 200,
        outcome: 'ok',
        interceptedBy: 'toy-cache',
      })
    })
  }

  it('keeps entries apart per key: another key misses', async () => {
    await clients['openai']!.json()
    await openai()
      .withOptions({ apiKey: keys.gptOnly })
      .chat.completions.create({
        model: 'gpt-mock',
        messages: [{ role: 'user', content: 'cache me' }],
      })
    expect(calls()).toHaveLength(2)
    expect(calls().filter((event) => event.interceptedBy !== undefined)).toHaveLength(0)
  })
})

describe('settled answers', () => {
  it('records outcome, status, usage and body, for JSON and streams', async () => {
    const seen = recorder('recorder', 100_000)
    gatewayWith([seen])
    await clients['openai']!.json()
    await clients['anthropic']!.stream()
    expect(seen.seen).toHaveLength(2)
    const [json, stream] = seen.seen
    expect(json!.call).toMatchObject({
      route: 'chat.completions',
      protocol: 'openai',
      model: 'gpt-mock',
      group: 'o',
      upstreamModel: 'gpt-mock',
      stream: false,
      key: { name: 'main' },
    })
    expect(json!.settled).toMatchObject({ status: 200, outcome: 'ok', answeredBy: undefined })
    expect(json!.settled.usage?.inputTokens).toBeGreaterThan(0)
    expect(JSON.parse(json!.settled.body!)).toMatchObject({ object: 'chat.completion' })
    expect(stream!.call).toMatchObject({ route: 'messages', protocol: 'anthropic', stream: true })
    expect(stream!.settled).toMatchObject({ status: 200, outcome: 'ok' })
    expect(stream!.settled.usage?.outputTokens).toBeGreaterThan(0)
    // The whole stream, its last event included, though the relay settles before queuing it.
    expect(stream!.settled.body).toContain('event: message_stop')
  })

  it("never shows an interceptor the client's credential, and copies an answer it hands out", async () => {
    const seen: Array<Record<string, string | null | boolean>> = []
    // One remembered answer handed to every caller, as a naive cache might.
    const shared = jsonTextAnswer(
      JSON.stringify({
        id: 'chatcmpl-shared',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-mock',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'hi', refusal: null },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
      }),
    )
    gatewayWith([
      {
        name: 'peek',
        before(call) {
          seen.push({
            authorization: call.headers.get('Authorization'),
            apiKey: call.headers.get('x-api-key'),
            hasAuthorization: call.headers.has('authorization'),
            cookie: call.headers.get('cookie'),
            contentType: call.headers.get('content-type'),
          })
          return shared
        },
      },
    ])
    const ask = () =>
      built.gateway(
        new Request(`${gatewayUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${keys.main}`,
            'x-api-key': keys.main,
            cookie: 'session=secret-cookie',
            'content-type': 'application/json',
          },
          body: JSON.stringify({ model: 'gpt-mock', messages: [{ role: 'user', content: 'hi' }] }),
        }),
      )
    const first = await ask()
    const second = await ask()
    expect(first.status).toBe(200)
    expect(await second.json()).toMatchObject({ id: 'chatcmpl-shared' })
    expect(seen).toEqual([
      {
        authorization: null,
        apiKey: null,
        hasAuthorization: false,
        cookie: null,
        contentType: 'application/json',
      },
      {
        authorization: null,
        apiKey: null,
        hasAuthorization: false,
        cookie: null,
        contentType: 'application/json',
      },
    ])
    // Each answer carries its own request id; the remembered answer was never written to.
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'))
    expect(shared.headers.has('x-request-id')).toBe(false)
  })

  it('records an aborted stream once the client left, with the usage settled then', async () => {
    const seen = recorder()
    gatewayWith([seen])
    const response = await built.gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'slow-mock',
          stream: true,
          messages: [{ role: 'user', content: 'go' }],
        }),
      }),
    )
    const reader = response.body!.getReader()
    await reader.read()
    expect(seen.seen).toHaveLength(0)
    await reader.cancel()
    await expect.poll(() => seen.seen.length).toBe(1)
    expect(seen.seen[0]!.settled).toMatchObject({ status: 200, outcome: 'aborted' })
    expect(seen.seen[0]!.settled.usage).toBeDefined()
    expect(built.events.at(-1)).toMatchObject({ outcome: 'aborted' })
  })

  it('records an error answer, and calls that use no tokens with no usage', async () => {
    const seen = recorder()
    gatewayWith([seen])
    const counted = await anthropic().messages.countTokens({
      model: 'claude-mock',
      messages: [{ role: 'user', content: 'count me' }],
    })
    expect(counted.input_tokens).toBeGreaterThan(0)
    await expect(
      openai().chat.completions.create({
        model: 'gpt-mock',
        messages: [{ role: 'user', content: 'x' }],
        max_tokens: -1,
      }),
    ).rejects.toThrow()
    // A refusal before the call (an invalid body) never reaches the chain.
    expect(seen.seen.map((item) => item.call.route)).toEqual(['count_tokens'])
    expect(seen.seen[0]!.settled).toMatchObject({ status: 200, outcome: 'ok', usage: undefined })
  })

  it('sees Gemini token counts and embeddings, in their own protocols', async () => {
    const seen = recorder()
    gatewayWith([seen])
    const counted = await genai().models.countTokens({ model: 'gemini-mock', contents: 'count' })
    expect(counted.totalTokens).toBeGreaterThan(0)
    const embedded = await openai().embeddings.create({
      model: 'text-embedding-3-small',
      input: 'embed me',
    })
    expect(embedded.data).toHaveLength(1)
    expect(seen.seen.map(({ call }) => [call.route, call.protocol, call.stream])).toEqual([
      ['gemini.count_tokens', 'gemini', false],
      ['embeddings', 'openai', false],
    ])
    expect(seen.seen[1]!.settled.usage?.inputTokens).toBeGreaterThan(0)
  })

  it('a before that throws answers the client with its error, and settles it', async () => {
    const seen = recorder()
    const refuse: CallInterceptor = {
      name: 'refuse',
      before: () => {
        throw new GatewayError('rate_limited', 'Not now.')
      },
    }
    gatewayWith([seen, refuse])
    const error = await anthropic()
      .messages.create({
        model: 'claude-mock',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.RateLimitError)
    expect(seen.seen[0]!.settled).toMatchObject({
      status: 429,
      outcome: 'error',
      error: { code: 'rate_limited' },
    })
  })
})

describe('the order of several interceptors', () => {
  function logged(name: string, log: string[], answer = false): CallInterceptor {
    return {
      name,
      before: (call) => {
        log.push(`before ${name}`)
        return answer ? jsonTextAnswer(JSON.stringify(answeredBy(call, name))) : undefined
      },
      settled: (_call, settled) => void log.push(`settled ${name} ${settled.answeredBy ?? '-'}`),
    }
  }
  const answeredBy = (call: InterceptedCall, name: string) => ({
    id: 'chatcmpl-x',
    object: 'chat.completion',
    created: 0,
    model: call.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: `from ${name}` },
        finish_reason: 'stop',
      },
    ],
  })

  it('runs before in order and settled in reverse, all of them when none answers', async () => {
    const log: string[] = []
    gatewayWith([logged('a', log), logged('b', log), logged('c', log)])
    await clients['openai']!.json()
    expect(log).toEqual([
      'before a',
      'before b',
      'before c',
      'settled c -',
      'settled b -',
      'settled a -',
    ])
  })

  it('stops at the one that answers: later ones see nothing of the call', async () => {
    const log: string[] = []
    gatewayWith([logged('a', log), logged('b', log, true), logged('c', log)])
    expect(await clients['openai']!.json()).toBe('from b')
    expect(log).toEqual(['before a', 'before b', 'settled b b', 'settled a b'])
    expect(upstreamCalls(calls())).toBe(0)
  })

  it('refuses two interceptors of one name', () => {
    expect(() => gatewayWith([recorder('x'), recorder('x')])).toThrow(/named "x"/)
  })
})
