import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMemoryResponseStore, type GatewayHandler } from '../../src/index'
import {
  anthropicApiKey,
  anthropicBaseUrl,
  anthropicHandlers,
  anthropicMessage,
  anthropicTextFrames,
} from '../helpers/anthropic-upstream'
import { responsesModelAnswer } from '../helpers/fakes/responses-fake'
import { buildGateway, fetchThrough, gatewayUrl } from '../helpers/gateway'
import {
  responseObject,
  responsesApiKey,
  responsesBaseUrl,
  responsesHandlers,
} from '../helpers/responses-upstream'
import {
  createMockUpstream,
  type UpstreamBehaviour,
  type UpstreamCallRecord,
} from '../helpers/upstream'

const keyA = 'sk-test-store-a-0123456789abcdefABCD'
const keyB = 'sk-test-store-b-0123456789abcdefABCD'
const upstream = createMockUpstream()
const anthropicCalls: UpstreamCallRecord[] = []
const responsesCalls: UpstreamCallRecord[] = []
let anthropicAnswer: UpstreamBehaviour
let responsesAnswer: UpstreamBehaviour
let handler: GatewayHandler
upstream.server.use(
  ...anthropicHandlers({ calls: anthropicCalls, behaviour: () => anthropicAnswer }),
  ...responsesHandlers({ calls: responsesCalls, behaviour: () => responsesAnswer }),
)
beforeAll(() => upstream.server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => upstream.server.close())
beforeEach(() => {
  anthropicCalls.length = 0
  responsesCalls.length = 0
  handler = buildGateway({
    groups: [
      {
        id: 'a',
        protocol: 'anthropic',
        models: ['claude'],
        upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
      },
      {
        id: 'r',
        protocol: 'openai',
        models: ['gpt-5'],
        upstreams: [{ baseUrl: responsesBaseUrl, apiKey: responsesApiKey, responses: true }],
      },
    ],
    keys: [{ key: keyA }, { key: keyB }],
    responseStore: createMemoryResponseStore({ maxResponses: 3 }),
  }).gateway
  anthropicAnswer = {
    kind: 'json',
    body: anthropicMessage([
      { type: 'thinking', thinking: 'Hmm.', signature: 'sig-A' },
      { type: 'text', text: 'Paris' },
    ]),
  }
  responsesAnswer = { kind: 'json', body: responseObject([], { input: 1, output: 1 }) }
})

const client = (key = keyA) =>
  new OpenAI({
    apiKey: key,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(handler),
    maxRetries: 0,
  })
const lastAnthropic = () =>
  JSON.parse(anthropicCalls.at(-1)!.body) as { messages: Array<{ role: string; content: unknown }> }
const post = (body: object, key = keyA) =>
  handler(
    new Request(`${gatewayUrl}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  )

describe('the response store', () => {
  it('RESP-REQ-14: previous_response_id carries the stored input and output, signed thinking included', async () => {
    const first = await client().responses.create({
      model: 'claude',
      input: 'Capital of France?',
      reasoning: { effort: 'low' },
    })
    await client().responses.create({
      model: 'claude',
      input: 'And Italy?',
      previous_response_id: first.id,
      reasoning: { effort: 'low' },
    })
    expect(lastAnthropic().messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Hmm.', signature: 'sig-A' },
          { type: 'text', text: 'Paris' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'And Italy?' }] },
    ])
  })

  it('RESP-REQ-13: item_reference resolves to stored items (the AI SDK default second turn)', async () => {
    const first = await client().responses.create({ model: 'claude', input: 'Capital of France?' })
    await client().responses.create({
      model: 'claude',
      input: [
        { role: 'user', content: 'Capital of France?' },
        ...first.output.map((item) => ({ type: 'item_reference' as const, id: item.id! })),
        { role: 'user', content: 'Thanks!' },
      ],
    })
    expect(lastAnthropic().messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Hmm.', signature: 'sig-A' },
        { type: 'text', text: 'Paris' },
      ],
    })
  })

  it('reasoning sent back by id only (the Agents SDK replays it so) is restored from the store', async () => {
    const first = await client().responses.create({
      model: 'claude',
      input: 'q',
      reasoning: { effort: 'low' },
    })
    const reasoning = first.output.find((item) => item.type === 'reasoning')!
    expect(reasoning).not.toHaveProperty('encrypted_content')
    await client().responses.create({
      model: 'claude',
      reasoning: { effort: 'low' },
      input: [
        { role: 'user', content: 'q' },
        { type: 'reasoning', id: reasoning.id, summary: [] },
        { role: 'assistant', content: 'Paris' },
        { role: 'user', content: 'more' },
      ],
    })
    expect(lastAnthropic().messages[1]!.content).toEqual([
      { type: 'thinking', thinking: 'Hmm.', signature: 'sig-A' },
      { type: 'text', text: 'Paris' },
    ])
  })

  it('an unknown id is a 400 that says how to fix the request', async () => {
    const previous = await post({
      model: 'claude',
      input: 'x',
      previous_response_id: 'resp_unknown',
    })
    expect(previous.status).toBe(400)
    expect(await previous.json()).toEqual({
      error: {
        message: expect.stringContaining(
          'send the whole conversation as input items (with `store: false`)',
        ),
        type: 'invalid_request_error',
        param: 'previous_response_id',
        code: null,
      },
    })
    const reference = await post({
      model: 'claude',
      input: [
        { role: 'user', content: 'x' },
        { type: 'item_reference', id: 'msg_nope' },
      ],
    })
    expect(reference.status).toBe(400)
    expect(await reference.json()).toMatchObject({
      error: { param: 'input[1]', message: expect.stringContaining('set `store: false`') },
    })
    expect(anthropicCalls).toHaveLength(0)
  })

  it('keeps responses per key: another key cannot read them', async () => {
    const first = await client(keyA).responses.create({ model: 'claude', input: 'secret' })
    const other = await post({ model: 'claude', input: 'x', previous_response_id: first.id }, keyB)
    expect(other.status).toBe(400)
    const get = await handler(
      new Request(`${gatewayUrl}/v1/responses/${first.id}`, {
        headers: { authorization: `Bearer ${keyB}` },
      }),
    )
    expect(get.status).toBe(404)
  })

  it('stores nothing with store: false', async () => {
    const first = await client().responses.create({ model: 'claude', input: 'x', store: false })
    expect(
      (await post({ model: 'claude', input: 'y', previous_response_id: first.id })).status,
    ).toBe(400)
  })

  it('GET /v1/responses/{id} answers from the store; blobs only with include', async () => {
    const first = await client().responses.create({
      model: 'claude',
      input: 'q',
      reasoning: { effort: 'low' },
    })
    const got = await client().responses.retrieve(first.id)
    expect(got).toMatchObject({ id: first.id, status: 'completed', output_text: 'Paris' })
    expect(got.output[0]).not.toHaveProperty('encrypted_content')
    const withBlobs = await client().responses.retrieve(first.id, {
      include: ['reasoning.encrypted_content'],
    })
    expect(withBlobs.output[0]).toMatchObject({
      encrypted_content: expect.stringMatching(/^gwr1\./),
    })
    const missing = await handler(
      new Request(`${gatewayUrl}/v1/responses/resp_nope`, {
        headers: { authorization: `Bearer ${keyA}` },
      }),
    )
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({
      error: { message: "Response with id 'resp_nope' not found." },
    })
    const wrongMethod = await handler(
      new Request(`${gatewayUrl}/v1/responses/${first.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${keyA}` },
      }),
    )
    expect(wrongMethod.status).toBe(405)
  })

  it('answers in full when the store fails, streams included', async () => {
    const failing = {
      put: () => {
        throw new Error('store down')
      },
      get: () => undefined,
      items: () => new Map(),
    }
    const errors: unknown[] = []
    const original = console.error
    console.error = (...args: unknown[]) => void errors.push(args)
    try {
      handler = buildGateway({
        groups: [
          {
            id: 'a',
            protocol: 'anthropic',
            models: ['claude'],
            upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
          },
        ],
        keys: [{ key: keyA }],
        responseStore: failing,
      }).gateway
      expect((await client().responses.create({ model: 'claude', input: 'q' })).output_text).toBe(
        'Paris',
      )
      anthropicAnswer = { kind: 'sse', frames: anthropicTextFrames(['Par', 'is']) }
      const streamed = await client()
        .responses.stream({ model: 'claude', input: 'q' })
        .finalResponse()
      expect(streamed.status).toBe('completed')
      expect(errors).toHaveLength(2)
    } finally {
      console.error = original
    }
  })

  it('reads nothing from the store for reasoning that carries its blob (a Codex turn)', async () => {
    const unreadable = {
      put: () => undefined,
      get: () => Promise.reject(new Error('down')),
      items: () => Promise.reject(new Error('down')),
    }
    handler = buildGateway({
      groups: [
        {
          id: 'r',
          protocol: 'openai',
          models: ['gpt-5'],
          upstreams: [{ baseUrl: responsesBaseUrl, apiKey: responsesApiKey, responses: true }],
        },
      ],
      keys: [{ key: keyA }],
      responseStore: unreadable,
    }).gateway
    // OpenAI's own encrypted reasoning, as the Responses fake issued it.
    const issued = responsesModelAnswer({
      model: 'gpt-5',
      input: 'q',
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low' },
    }) as { json: { output: Array<Record<string, unknown>> } }
    const codexTurn = {
      model: 'gpt-5',
      store: false,
      input: [
        { role: 'user', content: 'q' },
        issued.json.output[0]!,
        { role: 'user', content: 'more' },
      ],
    }
    expect((await post(codexTurn)).status).toBe(200)
    const named = await post({ ...codexTurn, previous_response_id: 'resp_1' })
    expect(named.status).toBe(503)
    expect(await named.json()).toMatchObject({ error: { code: 'server_is_overloaded' } })
  })

  it('is bounded: the oldest responses go first', async () => {
    const ids: string[] = []
    for (let turn = 0; turn < 4; turn += 1)
      ids.push((await client().responses.create({ model: 'claude', input: `q${turn}` })).id)
    expect((await post({ model: 'claude', input: 'x', previous_response_id: ids[0] })).status).toBe(
      400,
    )
    expect((await post({ model: 'claude', input: 'x', previous_response_id: ids[3] })).status).toBe(
      200,
    )
  })

  it('passthrough: ids the store holds are expanded for an upstream that could not know them; others go as sent', async () => {
    const first = await client().responses.create({
      model: 'claude',
      input: 'Capital of France?',
      reasoning: { effort: 'low' },
    })
    await client().responses.create({
      model: 'gpt-5',
      input: 'And Italy?',
      previous_response_id: first.id,
    })
    const sent = JSON.parse(responsesCalls.at(-1)!.body) as Record<string, unknown>
    expect(sent['previous_response_id']).toBeNull()
    // The gateway's reasoning blob is for Anthropic: OpenAI would refuse it, so it is left out.
    expect(sent['input']).toEqual([
      { type: 'message', role: 'user', content: 'Capital of France?' },
      expect.objectContaining({ type: 'message', role: 'assistant' }),
      { type: 'message', role: 'user', content: 'And Italy?' },
    ])
    const unknownBody =
      '{"model":"gpt-5","input":"hi","previous_response_id":"resp_openai_own","x_future":1}'
    await handler(
      new Request(`${gatewayUrl}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keyA}` },
        body: unknownBody,
      }),
    )
    expect(responsesCalls.at(-1)!.body).toBe(unknownBody)
  })
})
