import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { GatewayConfig, RequestEvent, UsageRecord } from '../../src/index'
import { buildGateway, fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import { gatewayHandler } from '../helpers/gemini-upstream'

const cache = { ttlSeconds: 60 }
const groups: GatewayConfig['groups'] = [
  { id: 'o', protocol: 'openai', models: ['gpt-mock'], upstreams: [{ provider: 'mock' }], cache },
  {
    id: 'a',
    protocol: 'anthropic',
    models: ['claude-mock'],
    upstreams: [{ provider: 'mock' }],
    cache,
  },
  {
    id: 'g',
    protocol: 'gemini',
    models: ['gemini-mock'],
    upstreams: [{ provider: 'mock' }],
    cache,
  },
  // A long answer: the stream has many deltas, each replayed as it came.
  {
    id: 'long',
    protocol: 'openai',
    models: ['long-mock'],
    upstreams: [{ provider: 'mock', reply: 'word '.repeat(300) }],
    cache,
  },
  { id: 'plain', protocol: 'openai', models: ['plain-mock'], upstreams: [{ provider: 'mock' }] },
]

let built: ReturnType<typeof buildGateway>
let records: UsageRecord[]
const server = setupServer(gatewayHandler(gatewayUrl, () => built.gateway))
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => server.close())
beforeEach(() => {
  records = []
  built = buildGateway({
    groups,
    keys: [
      { key: keys.main, name: 'main' },
      { key: keys.gptOnly, name: 'other' },
    ],
    usageLedger: { record: (record) => void records.push(record) },
  })
})

const fetchOf = () => fetchThrough(built.gateway)
const openai = (apiKey: string = keys.main) =>
  new OpenAI({ apiKey, baseURL: `${gatewayUrl}/v1`, fetch: fetchOf() })
const anthropic = (apiKey: string = keys.main) =>
  new Anthropic({ apiKey, baseURL: gatewayUrl, fetch: fetchOf() })
const genai = (apiKey: string = keys.main) =>
  new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gatewayUrl } })

/** What a client made of an answer: everything but the ids and times a hit mints anew. */
type Parsed = { text: string; finish: unknown; usage: unknown; header?: string | null }

type Client = {
  json(input: string, options?: { temperature?: number; apiKey?: string }): Promise<Parsed>
  stream(input: string, options?: { temperature?: number; apiKey?: string }): Promise<Parsed>
}

const clients: Record<string, Client> = {
  openai: {
    async json(input, options = {}) {
      const { data, response } = await openai(options.apiKey)
        .chat.completions.create({
          model: 'gpt-mock',
          messages: [{ role: 'user', content: input }],
          ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        })
        .withResponse()
      return {
        text: data.choices[0]!.message.content ?? '',
        finish: data.choices[0]!.finish_reason,
        usage: data.usage,
        header: response.headers.get('x-gateway-cache'),
      }
    },
    async stream(input, options = {}) {
      const { data: stream, response } = await openai(options.apiKey)
        .chat.completions.create({
          model: 'gpt-mock',
          messages: [{ role: 'user', content: input }],
          stream: true,
          stream_options: { include_usage: true },
          ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        })
        .withResponse()
      let text = ''
      let finish: unknown
      let usage: unknown
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? ''
        finish = chunk.choices[0]?.finish_reason ?? finish
        if (chunk.usage) usage = chunk.usage
      }
      return { text, finish, usage, header: response.headers.get('x-gateway-cache') }
    },
  },
  responses: {
    async json(input, options = {}) {
      const { data, response } = await openai(options.apiKey)
        .responses.create({
          model: 'gpt-mock',
          input,
          ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        })
        .withResponse()
      return {
        text: data.output_text,
        finish: data.status,
        usage: data.usage,
        header: response.headers.get('x-gateway-cache'),
      }
    },
    async stream(input, options = {}) {
      const { data: stream, response } = await openai(options.apiKey)
        .responses.create({
          model: 'gpt-mock',
          input,
          stream: true,
          ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        })
        .withResponse()
      let text = ''
      let final: OpenAI.Responses.Response | undefined
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') text += event.delta
        if (event.type === 'response.completed') final = event.response
      }
      expect(final?.status).toBe('completed')
      return {
        text,
        finish: final?.status,
        usage: final?.usage,
        header: response.headers.get('x-gateway-cache'),
      }
    },
  },
  anthropic: {
    async json(input, options = {}) {
      const { data, response } = await anthropic(options.apiKey)
        .messages.create({
          model: 'claude-mock',
          max_tokens: 200,
          messages: [{ role: 'user', content: input }],
          ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        })
        .withResponse()
      return {
        text: data.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
        finish: data.stop_reason,
        usage: data.usage,
        header: response.headers.get('x-gateway-cache'),
      }
    },
    async stream(input, options = {}) {
      const stream = anthropic(options.apiKey).messages.stream({
        model: 'claude-mock',
        max_tokens: 200,
        messages: [{ role: 'user', content: input }],
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      })
      const { response } = await stream.withResponse()
      const final = await stream.finalMessage()
      return {
        text: final.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
        finish: final.stop_reason,
        usage: final.usage,
        header: response.headers.get('x-gateway-cache'),
      }
    },
  },
  gemini: {
    async json(input, options = {}) {
      const answer = await genai(options.apiKey).models.generateContent({
        model: 'gemini-mock',
        contents: input,
        ...(options.temperature === undefined
          ? {}
          : { config: { temperature: options.temperature } }),
      })
      return {
        text: answer.text ?? '',
        finish: answer.candidates?.[0]?.finishReason,
        usage: answer.usageMetadata,
      }
    },
    async stream(input, options = {}) {
      const stream = await genai(options.apiKey).models.generateContentStream({
        model: 'gemini-mock',
        contents: input,
        ...(options.temperature === undefined
          ? {}
          : { config: { temperature: options.temperature } }),
      })
      let text = ''
      let finish: unknown
      let usage: unknown
      for await (const part of stream) {
        text += part.text ?? ''
        finish = part.candidates?.[0]?.finishReason ?? finish
        usage = part.usageMetadata ?? usage
      }
      return { text, finish, usage }
    },
  },
}

const generationEvents = () => built.events.filter((event) => event.route !== 'models')
const upstreamCalls = (events: readonly RequestEvent[]) =>
  events.filter((event) => (event.attempts?.length ?? 0) > 0).length
/** Settles background work (cache writes go through `waitUntil`). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5))
const without = ({ header: _header, ...parsed }: Parsed) => parsed

describe('the response cache, through every client SDK at its defaults', () => {
  for (const [protocol, client] of Object.entries(clients)) {
    it(`${protocol}: a repeated JSON request is a hit, the upstream called once`, async () => {
      const first = await client.json('cache me')
      await settle()
      const second = await client.json('cache me')
      expect(first.text).not.toBe('')
      expect(without(second)).toEqual(without(first))
      if (first.header !== undefined) {
        expect(first.header).toBe('miss')
        expect(second.header).toBe('hit')
      }
      const events = generationEvents()
      expect(events.map((event) => event.cache)).toEqual(['miss', 'hit'])
      expect(upstreamCalls(events)).toBe(1)
      // The hit is metered with the original usage, costing nothing, marked cached.
      await settle()
      expect(records).toHaveLength(2)
      expect(records[1]).toMatchObject({ cached: true, outcome: 'ok', providerId: 'cache' })
      expect(records[1]!.usage).toEqual(records[0]!.usage)
      expect(records[1]!.cost?.nanoUsd ?? 0).toBe(0)
    })

    it(`${protocol}: a repeated stream is a hit that parses exactly as the original did`, async () => {
      const first = await client.stream('cache my stream')
      await settle()
      const second = await client.stream('cache my stream')
      expect(first.text).not.toBe('')
      expect(without(second)).toEqual(without(first))
      expect(generationEvents().map((event) => event.cache)).toEqual(['miss', 'hit'])
      expect(upstreamCalls(generationEvents())).toBe(1)
    })

    it(`${protocol}: a stream is served from a JSON answer, and the other way round`, async () => {
      const json = await client.json('either way')
      await settle()
      const stream = await client.stream('either way')
      expect(stream.text).toBe(json.text)
      expect(stream.finish).toEqual(json.finish)
      const other = await client.stream('the other way')
      await settle()
      const fromStream = await client.json('the other way')
      expect(fromStream.text).toBe(other.text)
      expect(generationEvents().map((event) => event.cache)).toEqual(['miss', 'hit', 'miss', 'hit'])
    })

    it(`${protocol}: a changed message, temperature or key is a miss`, async () => {
      await client.json('one', { temperature: 0.5 })
      await settle()
      await client.json('two', { temperature: 0.5 })
      await client.json('one', { temperature: 0.7 })
      await client.json('one', { temperature: 0.5, apiKey: keys.gptOnly })
      await client.json('one', { temperature: 0.5 })
      expect(generationEvents().map((event) => event.cache)).toEqual([
        'miss',
        'miss',
        'miss',
        'miss',
        'hit',
      ])
    })
  }
})

describe('the cache controls', () => {
  const ask = (headers: Record<string, string>, model = 'gpt-mock') =>
    built.gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${keys.main}`,
          'content-type': 'application/json',
          ...headers,
        },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'control' }] }),
      }),
    )

  it('no-store neither reads nor writes; no-cache refreshes; a group without cache says nothing', async () => {
    expect((await ask({ 'cache-control': 'no-store' })).headers.get('x-gateway-cache')).toBe(
      'bypass',
    )
    await settle()
    expect((await ask({})).headers.get('x-gateway-cache')).toBe('miss')
    await settle()
    expect((await ask({ 'cache-control': 'no-cache' })).headers.get('x-gateway-cache')).toBe('miss')
    await settle()
    const hit = await ask({})
    expect(hit.headers.get('x-gateway-cache')).toBe('hit')
    expect(Number(hit.headers.get('age'))).toBeGreaterThanOrEqual(0)
    expect((await ask({}, 'plain-mock')).headers.get('x-gateway-cache')).toBeNull()
    expect(upstreamCalls(generationEvents())).toBe(4)
  })

  it('an error answer carries the header and is not cached', async () => {
    const bad = await built.gateway(
      new Request(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-mock', messages: [] }),
      }),
    )
    expect(bad.status).toBe(400)
  })
})

describe('long streams', () => {
  it('a stream of many deltas replays them one for one', async () => {
    const read = async () => {
      const stream = await openai().chat.completions.create({
        model: 'long-mock',
        messages: [{ role: 'user', content: 'long' }],
        stream: true,
      })
      const deltas: string[] = []
      for await (const chunk of stream) {
        expect(chunk.usage ?? null).toBeNull()
        if (chunk.choices[0]?.delta.content) deltas.push(chunk.choices[0].delta.content)
      }
      return deltas
    }
    const first = await read()
    await settle()
    const second = await read()
    expect(first.length).toBeGreaterThan(10)
    expect(second).toEqual(first)
    expect(generationEvents().map((event) => event.cache)).toEqual(['miss', 'hit'])
  })
})
