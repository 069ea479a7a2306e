import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { embeddingKeys, useEmbeddingGateway } from '../helpers/embedding-gateway'
import { fakeVector } from '../helpers/fakes/embedding-fakes'
import { gatewayUrl, keys } from '../helpers/gateway'

const setup = useEmbeddingGateway()

const openai = (apiKey: string = keys.main) =>
  new OpenAI({ apiKey, baseURL: `${gatewayUrl}/v1`, maxRetries: 0 })

/** A raw call, for the error bodies themselves. */
async function post(path: string, body: unknown, apiKey: string = keys.main) {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

/** Refused before any upstream call and before any usage record. */
function expectNothingSpent(before: number) {
  expect(setup.fakes.openai.calls).toHaveLength(0)
  expect(setup.fakes.gemini.calls).toHaveLength(0)
  expect(setup.records()).toHaveLength(before)
}

describe('bounds on embedding requests: a 400 naming the field, nothing sent or metered', () => {
  it.each([
    ['2049 inputs', { input: Array.from({ length: 2049 }, () => 'x') }, 'input', /at most 2048/],
    ['an empty string', { input: '' }, 'input', /empty string/],
    ['an empty list', { input: [] }, 'input', /empty array/],
    ['an empty item', { input: ['a', ''] }, 'input[1]', /empty string/],
    [
      'a token array over 8192',
      { input: [Array.from({ length: 8193 }, () => 1)] },
      'input[0]',
      /at most 8192/,
    ],
    ['a negative token', { input: [1, -2] }, 'input', /token id/],
    ['an object input', { input: { text: 'x' } }, 'input', /must be a string/],
    [
      'over 300,000 tokens',
      { input: Array.from({ length: 100 }, () => 'abcd'.repeat(3001)) },
      'input',
      /at most 300000/,
    ],
    ['dimensions 0', { input: 'x', dimensions: 0 }, 'dimensions', /positive integer/],
    ['dimensions 1.5', { input: 'x', dimensions: 1.5 }, 'dimensions', /positive integer/],
    [
      'encoding_format int8',
      { input: 'x', encoding_format: 'int8' },
      'encoding_format',
      /"float" or "base64"/,
    ],
    ['a numeric user', { input: 'x', user: 7 }, 'user', /string/],
  ])('%s', async (_name, fields, param, message) => {
    const before = setup.records().length
    const answer = await post('/v1/embeddings', { model: 'text-embedding-3-small', ...fields })
    expect(answer.status).toBe(400)
    expect(answer.body['error']).toMatchObject({ type: 'invalid_request_error', param })
    expect(answer.body['error']['message']).toMatch(message)
    expectNothingSpent(before)
  })

  it('an answer over the gateway’s answer limit: 2048 × 3072 floats', async () => {
    const before = setup.records().length
    const answer = await post('/v1/embeddings', {
      model: 'embed-large',
      input: Array.from({ length: 2048 }, () => 'x'),
    })
    expect(answer.status).toBe(400)
    expect(answer.body['error']['param']).toBe('input')
    expect(answer.body['error']['message']).toMatch(/answer limit/)
    expectNothingSpent(before)
  })

  it('101 inputs to a Gemini group, which embeds at most 100 a call', async () => {
    const error = await openai()
      .embeddings.create({
        model: 'gemini-embedding-001',
        input: Array.from({ length: 101 }, (_, index) => `text ${index}`),
      })
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as Error).message).toMatch(
      /group `g` is a Gemini group, which embeds at most 100/,
    )
    expect(setup.fakes.gemini.calls).toHaveLength(0)
  })

  it.each([
    [
      '101 requests',
      { requests: Array.from({ length: 101 }, () => ({ content: { parts: [{ text: 'x' }] } })) },
      /`requests` holds 101 items/,
    ],
    ['no requests', { requests: [] }, /`requests` must be a non-empty array/],
    [
      'an unknown taskType',
      { requests: [{ content: { parts: [{ text: 'x' }] }, taskType: 'SUMMARY' }] },
      /`requests\[0\]\.taskType` must be one of/,
    ],
    [
      'a part with no parts',
      { requests: [{ content: { parts: [] } }] },
      /`requests\[0\]\.content` must be a Content/,
    ],
    [
      'outputDimensionality -1',
      { requests: [{ content: { parts: [{ text: 'x' }] }, outputDimensionality: -1 }] },
      /`requests\[0\]\.outputDimensionality` must be a positive integer/,
    ],
  ])('Gemini batchEmbedContents: %s', async (_name, body, message) => {
    const before = setup.records().length
    const answer = await post('/v1beta/models/gemini-embedding-001:batchEmbedContents', body)
    expect(answer.status).toBe(400)
    expect(answer.body['error']).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' })
    expect(answer.body['error']['message']).toMatch(message)
    expectNothingSpent(before)
  })

  it('Gemini to an OpenAI group: differing dimensionalities, and images, are refused by name', async () => {
    const mixed = await post('/v1beta/models/text-embedding-3-small:batchEmbedContents', {
      requests: [
        { content: { parts: [{ text: 'a' }] }, outputDimensionality: 8 },
        { content: { parts: [{ text: 'b' }] }, outputDimensionality: 16 },
      ],
    })
    expect(mixed.status).toBe(400)
    expect(mixed.body['error']['message']).toMatch(/`requests\[1\]\.outputDimensionality` differs/)
    const image = await post('/v1beta/models/text-embedding-3-small:embedContent', {
      content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] },
    })
    expect(image.status).toBe(400)
    expect(image.body['error']['message']).toMatch(/`content\.parts\[0\]` is not text; group `o`/)
    expect(setup.fakes.openai.calls).toHaveLength(0)
  })
})

describe('limits, budgets and usage', () => {
  it('counts embeddings against a token quota, then refuses them once it is spent', async () => {
    // A 30-token quota: the one call in flight may run past it (docs/limits-and-usage.md) and is
    // charged the 100 tokens the upstream reports.
    await openai(keys.limited).embeddings.create({
      model: 'text-embedding-3-small',
      input: 'x'.repeat(400),
    })
    const summary = await setup.meter().summary(setup.records().at(-1)!.keyId)
    expect(summary.totalTokens).toBe(100)
    const error = await openai(keys.limited)
      .embeddings.create({ model: 'text-embedding-3-small', input: 'short' })
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('insufficient_quota')
    expect(setup.fakes.openai.calls).toHaveLength(1)
  })

  it('counts them in the per-minute input window', async () => {
    const client = openai(embeddingKeys.perMinute)
    // 30 tokens of the 40 a minute: served; another 30: refused, with the window's headers.
    await client.embeddings.create({ model: 'text-embedding-3-small', input: 'y'.repeat(120) })
    const error = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: 'z'.repeat(120) })
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect(setup.fakes.openai.calls).toHaveLength(1)
  })

  it('prices them at the embedding model’s list price, exact or estimated', async () => {
    const client = openai(embeddingKeys.budget)
    await client.embeddings.create({ model: 'text-embedding-3-small', input: 'a'.repeat(4000) })
    const exact = setup.records().at(-1)!
    expect(exact).toMatchObject({ estimated: false, usage: { inputTokens: 1000 } })
    // $0.02 per 1M tokens: 1000 tokens cost $0.00002 = 20,000 nano-USD.
    expect(exact.cost).toMatchObject({ nanoUsd: 20_000 })
    await client.embeddings.create({ model: 'gemini-embedding-001', input: 'b'.repeat(4000) })
    const estimated = setup.records().at(-1)!
    expect(estimated).toMatchObject({ estimated: true, usage: { inputTokens: 1000 } })
    // $0.15 per 1M tokens.
    expect(estimated.cost).toMatchObject({ nanoUsd: 150_000 })
  })
})

describe('failover and fallbacks apply as for generation', () => {
  it('retries an upstream 409 on the same upstream, and records both attempts', async () => {
    setup.fakes.openai.failures.push({
      status: 409,
      body: {
        error: {
          message: 'Conflict: retry.',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      },
    })
    const result = await openai().embeddings.create({
      model: 'text-embedding-3-small',
      input: 'again',
      encoding_format: 'float',
    })
    expect(result.data[0]!.embedding).toEqual(fakeVector('again', 1536))
    expect(setup.fakes.openai.calls).toHaveLength(2)
    expect(setup.records().at(-1)!.attempts).toHaveLength(2)
  })

  it('falls back from an OpenAI group to a Gemini model, translated', async () => {
    const failure = {
      status: 503,
      body: { error: { message: 'Overloaded.', type: 'server_error', param: null, code: null } },
    }
    setup.fakes.openai.failures.push(failure, failure, failure)
    const result = await openai().embeddings.create({
      model: 'embed-fb',
      input: ['one', 'two'],
      encoding_format: 'float',
    })
    expect(result.data.map((item) => item.embedding)).toEqual([
      fakeVector('one', 3072),
      fakeVector('two', 3072),
    ])
    expect(setup.fakes.gemini.calls).toHaveLength(1)
    expect(setup.records().at(-1)).toMatchObject({ groupId: 'g', estimated: true })
  })
})

describe('models', () => {
  it('GET /v1/models marks the embedding models with their dimensions and input limit', async () => {
    const list = await openai().models.list()
    const small = list.data.find((model) => model.id === 'text-embedding-3-small')
    expect(small).toMatchObject({ embedding: { dimensions: 1536, max_input_tokens: 8192 } })
    const gemini = list.data.find((model) => model.id === 'gemini-embedding-001')
    expect(gemini).toMatchObject({ embedding: { dimensions: 3072, max_input_tokens: 2048 } })
    expect(list.data.find((model) => model.id === 'claude-embed')).not.toHaveProperty('embedding')
  })

  it('GET /v1beta/models lists embedContent for them, as Google does', async () => {
    const genai = new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: gatewayUrl } })
    const model = await genai.models.get({ model: 'gemini-embedding-001' })
    expect(model.supportedActions).toEqual(['embedContent', 'batchEmbedContents'])
    expect(model.inputTokenLimit).toBe(2048)
    const pager = await genai.models.list()
    const names = new Map<string, string[] | undefined>()
    for await (const listed of pager) names.set(listed.name!, listed.supportedActions)
    expect(names.get('models/text-embedding-3-small')).toEqual([
      'embedContent',
      'batchEmbedContents',
    ])
    expect(names.get('models/claude-embed')).toContain('generateContent')
  })
})
