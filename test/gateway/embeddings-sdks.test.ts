import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { GoogleGenAI } from '@google/genai'
import { OpenAIEmbeddings } from '@langchain/openai'
import { embedMany } from 'ai'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { fakeTokens, fakeVector } from '../helpers/fakes/embedding-fakes'
import { useEmbeddingGateway } from '../helpers/embedding-gateway'
import { gatewayUrl, keys } from '../helpers/gateway'

const setup = useEmbeddingGateway()

// Every client at its defaults (retries included), through the global fetch.
const openai = () => new OpenAI({ apiKey: keys.main, baseURL: `${gatewayUrl}/v1` })
const genai = () => new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: gatewayUrl } })

/** Float32 of each value: what a client decoding base64 gets back. */
const f32 = (values: number[]) => Array.from(new Float32Array(values))

function decodeBase64(encoded: string): number[] {
  const bytes = Buffer.from(encoded, 'base64')
  return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4))
}

const texts = ['the first text', 'a second, longer text to embed', 'third']
const tokensOf = (inputs: string[]) => inputs.reduce((sum, text) => sum + fakeTokens(text), 0)
/** The gateway's estimate of text inputs: about four characters a token, at least one. */
const estimateOf = (inputs: string[]) =>
  inputs.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0)

describe('openai SDK embeddings.create', () => {
  describe('to an OpenAI group: passthrough', () => {
    it('embeds one string, with the body passed through but for the model', async () => {
      const result = await openai().embeddings.create({
        model: 'text-embedding-3-small',
        input: texts[0]!,
      })
      expect(result.data).toHaveLength(1)
      expect(result.data[0]!.embedding).toEqual(f32(fakeVector(texts[0]!, 1536)))
      expect(result.model).toBe('text-embedding-3-small')
      const sent = setup.fakes.openai.calls[0]!
      // The SDK asks for base64 by default; passthrough keeps it and the upstream packs the floats.
      expect(sent.body).toEqual({
        model: 'text-embedding-3-small',
        input: texts[0],
        encoding_format: 'base64',
      })
      expect(sent.headers.get('authorization')).toMatch(/^Bearer sk-upstream-secret/)
      expect(setup.records().at(-1)).toMatchObject({
        route: 'embeddings',
        groupId: 'o',
        estimated: false,
        usage: { inputTokens: fakeTokens(texts[0]!), outputTokens: 0 },
      })
    })

    it('embeds a batch in order, with dimensions, under an aliased model', async () => {
      const result = await openai().embeddings.create({
        model: 'embed-large',
        input: texts,
        dimensions: 8,
      })
      expect(result.data.map((item) => item.index)).toEqual([0, 1, 2])
      for (const item of result.data) {
        expect(item.embedding).toEqual(f32(fakeVector(texts[item.index]!, 8)))
      }
      expect(result.model).toBe('embed-large')
      expect(setup.fakes.openai.calls[0]!.body['model']).toBe('text-embedding-3-large')
      expect(result.usage.prompt_tokens).toBe(tokensOf(texts))
    })

    it('hands base64 through when the client asks for it', async () => {
      const result = await openai().embeddings.create({
        model: 'text-embedding-3-small',
        input: texts,
        dimensions: 4,
        encoding_format: 'base64',
      })
      for (const item of result.data) {
        expect(decodeBase64(item.embedding as unknown as string)).toEqual(
          f32(fakeVector(texts[item.index]!, 4)),
        )
      }
    })

    it("passes the upstream's refusal on: ada-002 takes no dimensions", async () => {
      const error = await openai()
        .embeddings.create({ model: 'text-embedding-ada-002', input: 'x', dimensions: 8 })
        .catch((thrown: unknown) => thrown)
      expect(error).toBeInstanceOf(OpenAI.BadRequestError)
      expect((error as Error).message).toMatch(/does not support specifying dimensions/)
    })
  })

  describe('to a Gemini group: translated', () => {
    it('embeds one string by :embedContent, base64 packed by the gateway', async () => {
      const result = await openai().embeddings.create({
        model: 'gemini-embedding-001',
        input: texts[0]!,
      })
      expect(result.data[0]!.embedding).toEqual(f32(fakeVector(texts[0]!, 3072)))
      expect(result.usage).toEqual({
        prompt_tokens: estimateOf([texts[0]!]),
        total_tokens: estimateOf([texts[0]!]),
      })
      const sent = setup.fakes.gemini.calls[0]!
      expect(sent.url).toBe('https://gemini.test/v1beta/models/gemini-embedding-001:embedContent')
      expect(sent.body).toEqual({ content: { parts: [{ text: texts[0] }] } })
      // Google reports no usage: the record holds the estimate, flagged.
      expect(setup.records().at(-1)).toMatchObject({
        route: 'embeddings',
        groupId: 'g',
        estimated: true,
        usage: { inputTokens: estimateOf([texts[0]!]), outputTokens: 0 },
      })
    })

    it('embeds a batch by :batchEmbedContents, dimensions → outputDimensionality, in order', async () => {
      const result = await openai().embeddings.create({
        model: 'gemini-embed',
        input: texts,
        dimensions: 16,
        encoding_format: 'float',
      })
      expect(result.model).toBe('gemini-embed')
      expect(result.data.map((item) => item.index)).toEqual([0, 1, 2])
      result.data.forEach((item, index) =>
        expect(item.embedding).toEqual(fakeVector(texts[index]!, 16)),
      )
      const sent = setup.fakes.gemini.calls[0]!
      expect(sent.url).toMatch(/gemini-embedding-001:batchEmbedContents$/)
      expect(sent.body['requests']).toEqual(
        texts.map((text) => ({
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text }] },
          outputDimensionality: 16,
        })),
      )
    })

    it('packs base64 itself when the client asks for it', async () => {
      const result = await openai().embeddings.create({
        model: 'gemini-embedding-001',
        input: texts,
        dimensions: 8,
        encoding_format: 'base64',
      })
      result.data.forEach((item, index) =>
        expect(decodeBase64(item.embedding as unknown as string)).toEqual(
          f32(fakeVector(texts[index]!, 8)),
        ),
      )
    })

    it('refuses token ids, which Gemini cannot embed, naming input and the group', async () => {
      const error = await openai()
        .embeddings.create({ model: 'gemini-embedding-001', input: [[1, 2, 3]] })
        .catch((thrown: unknown) => thrown)
      expect(error).toBeInstanceOf(OpenAI.BadRequestError)
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('input')
      expect((error as Error).message).toMatch(/group `g`/)
      expect(setup.fakes.gemini.calls).toHaveLength(0)
    })
  })
})

describe('@google/genai models.embedContent', () => {
  describe('to a Gemini group: passthrough', () => {
    it('embeds one content (the SDK sends :batchEmbedContents)', async () => {
      const result = await genai().models.embedContent({
        model: 'gemini-embed',
        contents: 'What is the meaning of life?',
        config: { taskType: 'RETRIEVAL_QUERY', outputDimensionality: 32 },
      })
      expect(result.embeddings).toHaveLength(1)
      expect(result.embeddings![0]!.values).toEqual(fakeVector('What is the meaning of life?', 32))
      const sent = setup.fakes.gemini.calls[0]!
      expect(sent.url).toMatch(/gemini-embedding-001:batchEmbedContents$/)
      // The requests name the upstream model, as Google requires of a batch.
      expect(sent.body['requests'][0]).toMatchObject({
        model: 'models/gemini-embedding-001',
        taskType: 'RETRIEVAL_QUERY',
        outputDimensionality: 32,
      })
      expect(setup.records().at(-1)).toMatchObject({
        route: 'gemini.batch_embed',
        estimated: true,
        usage: { inputTokens: estimateOf(['What is the meaning of life?']), outputTokens: 0 },
      })
    })

    it('embeds several contents in order', async () => {
      const result = await genai().models.embedContent({
        model: 'gemini-embedding-001',
        contents: texts,
        config: { taskType: 'RETRIEVAL_DOCUMENT', title: 'Doc' },
      })
      expect(result.embeddings!.map((embedding) => embedding.values)).toEqual(
        texts.map((text) => fakeVector(text, 3072)),
      )
    })
  })

  describe('to an OpenAI group: translated', () => {
    it('embeds several contents in order, outputDimensionality → dimensions, usage exact', async () => {
      const result = await genai().models.embedContent({
        model: 'text-embedding-3-small',
        contents: texts,
        config: { outputDimensionality: 12, taskType: 'SEMANTIC_SIMILARITY' },
      })
      expect(result.embeddings!.map((embedding) => embedding.values)).toEqual(
        texts.map((text) => fakeVector(text, 12)),
      )
      expect(setup.fakes.openai.calls[0]!.body).toEqual({
        model: 'text-embedding-3-small',
        input: texts,
        dimensions: 12,
        encoding_format: 'float',
      })
      expect(setup.records().at(-1)).toMatchObject({
        route: 'gemini.batch_embed',
        groupId: 'o',
        estimated: false,
        usage: { inputTokens: tokensOf(texts), outputTokens: 0 },
      })
    })

    it('embeds one content', async () => {
      const result = await genai().models.embedContent({
        model: 'embed-large',
        contents: 'one',
      })
      expect(result.embeddings![0]!.values).toEqual(fakeVector('one', 3072))
    })
  })
})

describe('LangChain OpenAIEmbeddings through /v1', () => {
  const langchain = (model: string) =>
    new OpenAIEmbeddings({
      model,
      apiKey: keys.main,
      configuration: { baseURL: `${gatewayUrl}/v1` },
    })

  it.each([
    ['text-embedding-3-small', 'o', 1536],
    ['gemini-embedding-001', 'g', 3072],
  ] as const)('embeds documents and a query on %s (group %s)', async (model, group, dims) => {
    const embeddings = langchain(model)
    const documents = await embeddings.embedDocuments(texts)
    expect(documents.map((vector) => vector.length)).toEqual([dims, dims, dims])
    texts.forEach((text, index) => expect(documents[index]).toEqual(f32(fakeVector(text, dims))))
    const query = await embeddings.embedQuery('a query')
    expect(query).toEqual(f32(fakeVector('a query', dims)))
    expect(setup.records().at(-1)).toMatchObject({ groupId: group, route: 'embeddings' })
  })
})

describe('LangChain OpenAIEmbeddings past Gemini’s 100 a batch', () => {
  const documents = Array.from({ length: 150 }, (_, index) => `document ${index}`)

  it('embeds 150 documents in two calls with batchSize 100, in order', async () => {
    const embeddings = new OpenAIEmbeddings({
      model: 'gemini-embedding-001',
      apiKey: keys.main,
      batchSize: 100,
      dimensions: 4,
      configuration: { baseURL: `${gatewayUrl}/v1` },
    })
    const vectors = await embeddings.embedDocuments(documents)
    expect(vectors).toEqual(documents.map((text) => f32(fakeVector(text, 4))))
    expect(setup.fakes.gemini.calls.map((call) => call.body['requests'].length)).toEqual([100, 50])
  })

  it('is told to, by a 400 naming input and the group, at its default batch size', async () => {
    const embeddings = new OpenAIEmbeddings({
      model: 'gemini-embedding-001',
      apiKey: keys.main,
      maxRetries: 0,
      configuration: { baseURL: `${gatewayUrl}/v1` },
    })
    await expect(embeddings.embedDocuments(documents)).rejects.toThrow(
      /group `g` is a Gemini group, which embeds at most 100/,
    )
    expect(setup.fakes.gemini.calls).toHaveLength(0)
  })
})

describe('AI SDK embedMany', () => {
  it('with @ai-sdk/openai through /v1 to an OpenAI group', async () => {
    const provider = createOpenAI({ apiKey: keys.main, baseURL: `${gatewayUrl}/v1` })
    const result = await embedMany({
      model: provider.embedding('text-embedding-3-small'),
      values: texts,
    })
    expect(result.embeddings).toEqual(texts.map((text) => fakeVector(text, 1536)))
    expect(result.usage.tokens).toBe(tokensOf(texts))
  })

  it('with @ai-sdk/openai through /v1 to a Gemini group', async () => {
    const provider = createOpenAI({ apiKey: keys.main, baseURL: `${gatewayUrl}/v1` })
    const result = await embedMany({
      model: provider.embedding('gemini-embedding-001'),
      values: texts,
      providerOptions: { openai: { dimensions: 64 } },
    })
    expect(result.embeddings).toEqual(texts.map((text) => fakeVector(text, 64)))
    expect(result.usage.tokens).toBe(estimateOf(texts))
  })

  it('with @ai-sdk/google through /v1beta to a Gemini group', async () => {
    const provider = createGoogleGenerativeAI({
      apiKey: keys.main,
      baseURL: `${gatewayUrl}/v1beta`,
    })
    const result = await embedMany({
      model: provider.embedding('gemini-embedding-001'),
      values: texts,
      providerOptions: { google: { outputDimensionality: 24, taskType: 'CLUSTERING' } },
    })
    expect(result.embeddings).toEqual(texts.map((text) => fakeVector(text, 24)))
    expect(setup.fakes.gemini.calls[0]!.body['requests'][0]['content']).toEqual({
      role: 'user',
      parts: [{ text: texts[0] }],
    })
  })

  it('with @ai-sdk/google through /v1beta to an OpenAI group, one value by :embedContent', async () => {
    const provider = createGoogleGenerativeAI({
      apiKey: keys.main,
      baseURL: `${gatewayUrl}/v1beta`,
    })
    const result = await embedMany({
      model: provider.embedding('text-embedding-3-small'),
      values: ['only one'],
    })
    expect(result.embeddings).toEqual([fakeVector('only one', 1536)])
    expect(setup.records().at(-1)).toMatchObject({ route: 'gemini.embed', groupId: 'o' })
  })
})

describe('an Anthropic group has no embeddings', () => {
  it('refuses the openai SDK with a 400 naming the group, calling no upstream', async () => {
    const error = await openai()
      .embeddings.create({ model: 'claude-embed', input: 'x' })
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as Error).message).toMatch(/group `a`, an Anthropic group/)
  })

  it('refuses @google/genai with INVALID_ARGUMENT naming the group', async () => {
    const error = await genai()
      .models.embedContent({ model: 'claude-embed', contents: 'x' })
      .catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({ status: 400 })
    expect((error as Error).message).toMatch(/INVALID_ARGUMENT/)
    expect((error as Error).message).toMatch(/group `a`, an Anthropic group/)
  })
})
