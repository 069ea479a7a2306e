import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, GatewayConfigError, type GatewayHandler } from '../../src/index'
import {
  anthropicApiKey,
  anthropicBaseUrl,
  anthropicHandlers,
  anthropicMessage,
} from '../helpers/anthropic-upstream'
import { buildGateway, gatewayUrl, keys } from '../helpers/gateway'
import {
  geminiApiKey,
  geminiBaseUrl,
  geminiHandlers,
  geminiResponse,
} from '../helpers/gemini-upstream'
import {
  responseObject,
  responsesApiKey,
  responsesBaseUrl,
  responsesHandlers,
} from '../helpers/responses-upstream'
import {
  chatCompletion,
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
  type UpstreamCallRecord,
} from '../helpers/upstream'

const upstream = createMockUpstream()
upstream.answer({ kind: 'json', body: chatCompletion('ok') })
const calls = {
  anthropic: [] as UpstreamCallRecord[],
  gemini: [] as UpstreamCallRecord[],
  responses: [] as UpstreamCallRecord[],
}
upstream.server.use(
  ...anthropicHandlers({
    calls: calls.anthropic,
    behaviour: () => ({ kind: 'json', body: anthropicMessage([{ type: 'text', text: 'ok' }]) }),
  }),
  ...geminiHandlers({
    calls: calls.gemini,
    behaviour: () => ({ kind: 'json', body: geminiResponse([{ text: 'ok' }]) }),
  }),
  ...responsesHandlers({
    calls: calls.responses,
    behaviour: () => ({ kind: 'json', body: responseObject([], { input: 1, output: 1 }) }),
  }),
)
let handler: GatewayHandler
beforeAll(() => {
  upstream.server.listen({ onUnhandledRequest: 'error' })
  handler = buildGateway({
    groups: [
      {
        id: 'o',
        protocol: 'openai',
        models: ['openai-model'],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
      {
        id: 'a',
        protocol: 'anthropic',
        models: ['anthropic-model'],
        upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
      },
      {
        id: 'g',
        protocol: 'gemini',
        models: ['gemini-model'],
        upstreams: [{ baseUrl: geminiBaseUrl, apiKey: geminiApiKey }],
      },
      {
        id: 'r',
        protocol: 'openai',
        models: ['responses-model', { name: 'alias', upstreamModel: 'gpt-5-2025-08-07' }],
        upstreams: [{ baseUrl: responsesBaseUrl, apiKey: responsesApiKey, responses: true }],
      },
    ],
    keys: [{ key: keys.main }],
  }).gateway
})
afterAll(() => upstream.server.close())

const post = (body: string | object, path = '/v1/responses') =>
  handler(
    new Request(`${gatewayUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.main}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  )
const models = ['openai-model', 'anthropic-model', 'gemini-model', 'responses-model'] as const

describe('POST /v1/responses', () => {
  it.each([
    [{ input: 'x' }, 'model'],
    [{ model: 'anthropic-model', input: 7 }, 'input'],
    [
      {
        model: 'anthropic-model',
        input: [
          { role: 'user', content: 'a' },
          { type: 'function_call', name: 'f', arguments: '{}' },
        ],
      },
      'input[1].call_id',
    ],
    [{ model: 'anthropic-model', input: [{ role: 'robot', content: 'a' }] }, 'input[0].role'],
    [{ model: 'anthropic-model', input: 'x', tools: [{ type: 'function' }] }, 'tools[0].name'],
    [{ model: 'anthropic-model', input: 'x', temperature: 3 }, 'temperature'],
    [{ model: 'anthropic-model', input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
    [{ model: 'responses-model', input: 'x', include: 'all' }, 'include'],
  ])('400 naming the field: %j → %s', async (body, param) => {
    const response = await post(body)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringContaining(param),
        type: 'invalid_request_error',
        param,
        code: null,
      },
    })
  })

  it('answers malformed JSON, an unknown model and background on a translated path in OpenAI shape', async () => {
    expect((await post('{"model":')).status).toBe(400)
    const unknown = await post({ model: 'nope', input: 'x' })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ error: { code: 'model_not_found' } })
    const background = await post({ model: 'anthropic-model', input: 'x', background: true })
    expect(await background.json()).toMatchObject({ error: { param: 'background' } })
    expect((await post({ model: 'openai-model', input: 'x' }, '/responses')).status).toBe(200)
  })

  it('passthrough: only model is spliced in; unknown fields, order and formatting survive', async () => {
    const body =
      '{"model":"alias","input":"hi", "client_metadata":{"x-codex-installation-id":"abc"},"temperature":1.0,"store":false}'
    expect((await post(body)).status).toBe(200)
    expect(calls.responses.at(-1)!.body).toBe(body.replace('"alias"', '"gpt-5-2025-08-07"'))
    expect(calls.responses.at(-1)!.url).toBe(`${responsesBaseUrl}/responses`)
    expect(calls.responses.at(-1)!.headers.get('authorization')).toBe(`Bearer ${responsesApiKey}`)
  })

  it('RESP-TOOL-04: built-in tools a translated upstream cannot serve are named in a header, never a 400', async () => {
    const body = {
      model: 'anthropic-model',
      input: 'x',
      tools: [
        { type: 'web_search' },
        { type: 'function', name: 'f' },
        { type: 'image_generation' },
      ],
    }
    const response = await post(body)
    expect(response.status).toBe(200)
    expect(response.headers.get('x-gateway-dropped-tools')).toBe('web_search, image_generation')
    expect(JSON.parse(calls.anthropic.at(-1)!.body)['tools']).toEqual([
      { name: 'f', input_schema: { type: 'object', properties: {} } },
    ])
    const passthrough = await post({ ...body, model: 'responses-model' })
    expect(passthrough.headers.get('x-gateway-dropped-tools')).toBeNull()
  })

  it('never answers 5xx to client input, and answers errors in OpenAI shape, on every upstream kind', async () => {
    const valid = {
      input: [
        { role: 'developer', content: 'perm' },
        { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c', output: 'ok' },
      ],
      tools: [
        { type: 'function', name: 'f' },
        { type: 'custom', name: 'apply_patch' },
      ],
      reasoning: { effort: 'low', summary: 'auto' },
    }
    const junk = fc.oneof(
      fc.constantFrom(
        null,
        true,
        0,
        -1,
        1e308,
        '',
        '__proto__',
        'constructor',
        [],
        {},
        { type: 'toString' },
        [{ type: '__proto__' }],
      ),
      fc.string(),
      fc.jsonValue({ maxDepth: 3 }),
    )
    const field = fc.constantFrom(
      'input',
      'tools',
      'tool_choice',
      'reasoning',
      'text',
      'include',
      'metadata',
      'instructions',
      'previous_response_id',
      'store',
      '__proto__',
      'constructor',
    )
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...models),
        field,
        junk,
        fc.nat(5),
        junk,
        async (model, name, value, at, itemJunk) => {
          const body: Record<string, unknown> = structuredClone({ model, ...valid })
          Object.defineProperty(body, name, {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          })
          if (Array.isArray(body['input']) && at < (body['input'] as unknown[]).length)
            (body['input'] as unknown[])[at] = itemJunk
          const response = await post(JSON.stringify(body))
          expect(response.status).toBeLessThan(500)
          if (response.status >= 400) {
            const error = ((await response.json()) as { error: Record<string, unknown> }).error
            expect(typeof error['message']).toBe('string')
            expect(error).toHaveProperty('type')
          } else {
            await response.body?.cancel()
          }
        },
      ),
      { numRuns: 400, seed: 11 },
    )
  })
})

describe('GET /v1/models for Codex', () => {
  const list = (query = '') =>
    handler(
      new Request(`${gatewayUrl}/v1/models${query}`, {
        headers: { authorization: `Bearer ${keys.main}` },
      }),
    )

  it('answers an empty catalogue beside the list to a request with client_version', async () => {
    const codex = (await (await list('?client_version=0.160.0')).json()) as Record<string, unknown>
    expect(codex['models']).toEqual([])
    expect(codex['object']).toBe('list')
    expect((codex['data'] as unknown[]).length).toBeGreaterThan(0)
  })

  it('leaves every other client the list it had', async () => {
    expect(await (await list()).json()).not.toHaveProperty('models')
  })
})

describe('the responses mark in the config', () => {
  it('is refused outside an openai group, by path', () => {
    expect(() =>
      createGateway({
        groups: [
          {
            id: 'a',
            protocol: 'anthropic',
            models: ['m'],
            upstreams: [{ baseUrl: 'https://a.test', responses: true }],
          },
        ],
        keys: [{ key: keys.main }],
      }),
    ).toThrow(GatewayConfigError)
    try {
      createGateway({
        groups: [
          {
            id: 'a',
            protocol: 'anthropic',
            models: ['m'],
            upstreams: [{ baseUrl: 'https://a.test', responses: true }],
          },
        ],
        keys: [{ key: keys.main }],
      })
    } catch (error) {
      expect((error as Error).message).toContain('groups[0].upstreams[0].responses')
    }
  })
})
