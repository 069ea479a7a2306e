import Anthropic from '@anthropic-ai/sdk'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { buildGateway, fetchThrough, gatewayUrl, keys, openAIClient } from '../helpers/gateway'
import {
  chatCompletion,
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
} from '../helpers/upstream'

const upstream = createMockUpstream()
beforeAll(() => upstream.server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => upstream.server.resetHandlers())
afterAll(() => upstream.server.close())

const hello = [{ role: 'user' as const, content: 'Hello' }]
const twoGroups = {
  groups: [
    {
      id: 'first',
      protocol: 'openai' as const,
      models: ['shared'],
      upstreams: [{ provider: 'mock' as const, reply: 'from first' }],
    },
    {
      id: 'second',
      protocol: 'openai' as const,
      models: ['shared', 'only-second'],
      upstreams: [{ provider: 'mock' as const, reply: 'from second' }],
    },
    {
      id: 'meta-llama',
      protocol: 'openai' as const,
      models: ['meta-llama/Llama-3.1-8B'],
      upstreams: [{ provider: 'mock' as const, reply: 'from llama' }],
    },
  ],
  keys: [{ key: keys.main }, { key: keys.gptOnly, groups: ['second'] }],
}

async function reply(
  gateway: Parameters<typeof openAIClient>[0],
  model: string,
  key: string = keys.main,
) {
  const completion = await openAIClient(gateway, key).chat.completions.create({
    model,
    messages: hello,
  })
  return completion.choices[0]?.message.content
}

describe('default routing', () => {
  it('takes the first group, in config order, that serves the call name', async () => {
    const { gateway } = buildGateway(twoGroups)
    expect(await reply(gateway, 'shared')).toBe('from first')
  })

  it('skips groups the key may not use', async () => {
    const { gateway } = buildGateway(twoGroups)
    expect(await reply(gateway, 'shared', keys.gptOnly)).toBe('from second')
  })

  it('sends the group upstream the configured upstreamModel', async () => {
    const { gateway } = buildGateway()
    upstream.answer({ kind: 'json', body: chatCompletion('ok') })
    await reply(gateway, 'fast')
    expect(upstream.lastBody()['model']).toBe('gpt-4o-mini-2024-07-18')
  })
})

describe('group-identifier routing', () => {
  it('pins the group named before the slash', async () => {
    const { gateway } = buildGateway(twoGroups)
    expect(await reply(gateway, 'second/shared')).toBe('from second')
  })

  it('treats a prefix that is not a group id as part of a plain model name', async () => {
    const { gateway } = buildGateway({
      groups: [twoGroups.groups[0]!, { ...twoGroups.groups[2]!, id: 'llama' }],
      keys: [{ key: keys.main }],
    })
    expect(await reply(gateway, 'meta-llama/Llama-3.1-8B')).toBe('from llama')
  })

  it('does not pin when groupIdRouting is off', async () => {
    const { gateway } = buildGateway({ ...twoGroups, groupIdRouting: false })
    await expect(reply(gateway, 'second/shared')).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    })
  })

  it('answers 404 when the pinned group does not serve the model', async () => {
    const { gateway } = buildGateway(twoGroups)
    await expect(reply(gateway, 'first/only-second')).rejects.toMatchObject({ status: 404 })
  })
})

describe('weighted upstreams', () => {
  it('picks an upstream by weight', async () => {
    const draws = [0.1, 0.5, 0.9]
    const { gateway } = buildGateway({
      random: () => draws.shift() ?? 0,
      groups: [
        {
          id: 'pool',
          protocol: 'openai',
          models: ['m'],
          upstreams: [
            { provider: 'mock', reply: 'light', weight: 1 },
            { provider: 'mock', reply: 'heavy', weight: 3 },
          ],
        },
      ],
      keys: [{ key: keys.main }],
    })
    expect([
      await reply(gateway, 'm'),
      await reply(gateway, 'm'),
      await reply(gateway, 'm'),
    ]).toEqual(['light', 'heavy', 'heavy'])
  })
})

describe('GET /v1/models', () => {
  it('lists only the models the key may use, in OpenAI shape', async () => {
    const { gateway } = buildGateway({ ...twoGroups, groupIdRouting: false })
    const page = await openAIClient(gateway, keys.gptOnly).models.list()
    expect(page.data.map((model) => model.id)).toEqual(['shared', 'only-second'])
    expect(page.data[0]).toMatchObject({
      object: 'model',
      owned_by: 'second',
      created: expect.any(Number),
    })
  })

  it('also lists the pinned forms when groupIdRouting is on', async () => {
    const { gateway } = buildGateway(twoGroups)
    const page = await openAIClient(gateway, keys.gptOnly).models.list()
    expect(page.data.map((model) => model.id)).toEqual([
      'shared',
      'only-second',
      'second/shared',
      'second/only-second',
    ])
  })

  it('answers the Anthropic SDK in its own shape and pages it', async () => {
    const { gateway } = buildGateway({ ...twoGroups, groupIdRouting: false })
    const client = new Anthropic({
      apiKey: keys.main,
      baseURL: gatewayUrl,
      fetch: fetchThrough(gateway),
      maxRetries: 0,
    })
    const ids: string[] = []
    for await (const model of client.models.list({ limit: 1 })) ids.push(model.id)
    expect(ids).toEqual(['shared', 'only-second', 'meta-llama/Llama-3.1-8B'])
    const first = await client.models.list({ limit: 2 })
    expect(first.data[0]).toMatchObject({ type: 'model', id: 'shared', display_name: 'shared' })
    expect(first.has_more).toBe(true)
  })

  it('answers an Anthropic client without a key with an Anthropic-shaped 401', async () => {
    const { gateway } = buildGateway()
    const response = await gateway(
      new Request(`${gatewayUrl}/v1/models`, { headers: { 'anthropic-version': '2023-06-01' } }),
    )
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    })
  })
})

describe('credentials', () => {
  it.each([
    ['Authorization: Bearer', { authorization: `Bearer ${keys.main}` }],
    ['x-api-key', { 'x-api-key': keys.main }],
    ['x-goog-api-key', { 'x-goog-api-key': keys.main }],
  ])('accepts the key from %s', async (_, headers) => {
    const { gateway } = buildGateway()
    const response = await gateway(new Request(`${gatewayUrl}/v1/models`, { headers }))
    expect(response.status).toBe(200)
  })

  it('serves the OpenAI routes without /v1 too, for base URLs that lack it', async () => {
    const { gateway } = buildGateway()
    const response = await gateway(
      new Request(`${gatewayUrl}/models`, { headers: { authorization: `Bearer ${keys.main}` } }),
    )
    expect(response.status).toBe(200)
  })

  it('routes under a configured basePath, ignoring the query string', async () => {
    const { gateway } = buildGateway({ basePath: '/llm' })
    const inside = await gateway(
      new Request(`${gatewayUrl}/llm/v1/models?x=1`, {
        headers: { authorization: `Bearer ${keys.main}` },
      }),
    )
    const outside = await gateway(
      new Request(`${gatewayUrl}/v1/models`, { headers: { authorization: `Bearer ${keys.main}` } }),
    )
    expect(inside.status).toBe(200)
    expect(outside.status).toBe(404)
  })
})

describe('upstream URL', () => {
  it('calls the group baseUrl with /chat/completions and the group key', async () => {
    const { gateway } = buildGateway()
    upstream.answer({ kind: 'json', body: chatCompletion('ok') })
    await reply(gateway, 'gpt-4o-mini')
    expect(upstream.lastCall().url).toBe(`${upstreamBaseUrl}/chat/completions`)
    expect(upstream.lastCall().headers.get('authorization')).toBe(`Bearer ${upstreamApiKey}`)
  })
})
