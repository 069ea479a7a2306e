import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { GatewayError } from '../../../src/errors'
import {
  geminiEmbeddingAnswer,
  openAIEmbeddingList,
} from '../../../src/protocols/embeddings/embedding-answers'
import {
  floatsToBase64,
  readGeminiVectors,
  readOpenAIVectors,
} from '../../../src/protocols/embeddings/embedding-vectors'
import { parseGeminiEmbedCall } from '../../../src/protocols/embeddings/gemini-embed-request'
import { parseOpenAIEmbeddingsRequest } from '../../../src/protocols/embeddings/openai-embeddings-request'

const float32 = fc.float({ noNaN: true, noDefaultInfinity: true })
/** As JSON carries them: `-0` is written `0`, by the gateway and the vendors alike. */
const jsonFloat = float32.map((value) => value + 0)

describe('floatsToBase64', () => {
  it('packs little-endian float32, as the openai SDK decodes it', () => {
    fc.assert(
      fc.property(fc.array(float32, { maxLength: 5000 }), (values) => {
        const bytes = Buffer.from(floatsToBase64(values), 'base64')
        const decoded = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)
        expect(Array.from(decoded)).toEqual(values.map(Math.fround))
      }),
      { numRuns: 60 },
    )
  })
})

describe('readOpenAIVectors', () => {
  it('places items by index, whatever order they come in', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(float32, { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 20,
        }),
        fc.integer(),
        (vectors, shuffle) => {
          const data = vectors.map((embedding, index) => ({
            object: 'embedding',
            index,
            embedding,
          }))
          const shuffled = data.map((_item, at) => data[(at + Math.abs(shuffle)) % data.length]!)
          expect(readOpenAIVectors({ data: shuffled }, vectors.length)).toEqual(vectors)
        },
      ),
    )
  })

  it.each([
    ['too few items', { data: [] }],
    [
      'an index twice',
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [2] },
        ],
      },
    ],
    [
      'an index out of range',
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 5, embedding: [2] },
        ],
      },
    ],
    [
      'a base64 string where floats were asked',
      {
        data: [
          { index: 0, embedding: 'AAAA' },
          { index: 1, embedding: [1] },
        ],
      },
    ],
    [
      'a string among the floats',
      {
        data: [
          { index: 0, embedding: [1, '2'] },
          { index: 1, embedding: [1] },
        ],
      },
    ],
  ])('is the upstream’s fault (502) on %s', (_name, body) => {
    const thrown = (() => {
      try {
        readOpenAIVectors(body, 2)
      } catch (error) {
        return error
      }
    })()
    expect(GatewayError.isInstance(thrown) && thrown.status).toBe(502)
  })
})

describe('readGeminiVectors', () => {
  it('reads one embedding, or a batch in order, and refuses a short batch', () => {
    expect(readGeminiVectors({ embedding: { values: [1, 2] } }, false, 1)).toEqual([[1, 2]])
    expect(readGeminiVectors({ embeddings: [{ values: [1] }, { values: [2] }] }, true, 2)).toEqual([
      [1],
      [2],
    ])
    expect(() => readGeminiVectors({ embeddings: [{ values: [1] }] }, true, 2)).toThrow(
      /1 embeddings for 2 requests/,
    )
  })
})

describe('the answers, written piece by piece', () => {
  it('are the JSON a plain stringify would give', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(jsonFloat, { maxLength: 6 }), { minLength: 1, maxLength: 8 }),
        fc.string(),
        fc.nat(),
        (vectors, model, tokens) => {
          expect(
            JSON.parse(
              openAIEmbeddingList(vectors, { encoding: 'float', model, promptTokens: tokens }),
            ),
          ).toEqual({
            object: 'list',
            data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
            model,
            usage: { prompt_tokens: tokens, total_tokens: tokens },
          })
          expect(JSON.parse(geminiEmbeddingAnswer(vectors, true))).toEqual({
            embeddings: vectors.map((values) => ({ values })),
          })
          expect(JSON.parse(geminiEmbeddingAnswer(vectors, false))).toEqual({
            embedding: { values: vectors[0] },
          })
        },
      ),
    )
  })
})

/** Any JSON value, and the OpenAI and Gemini embedding fields with plausible and hostile values. */
const anyJson = fc.jsonValue({ maxDepth: 3 })
const openAIBody = fc.record(
  {
    model: fc.oneof(fc.constant('text-embedding-3-small'), anyJson),
    input: fc.oneof(
      fc.string(),
      fc.array(fc.string(), { maxLength: 5 }),
      fc.array(fc.integer({ min: -2, max: 100_000 }), { maxLength: 5 }),
      fc.array(fc.array(fc.nat(), { maxLength: 5 }), { maxLength: 3 }),
      anyJson,
    ),
    dimensions: fc.oneof(fc.integer({ min: -5, max: 70_000 }), anyJson),
    encoding_format: fc.oneof(fc.constantFrom('float', 'base64', 'int8'), anyJson),
    user: fc.oneof(fc.string(), anyJson),
  },
  { requiredKeys: [] },
)

/** A parser either returns or throws a 400 GatewayError naming a field: nothing else. */
function expectCheckedOr400(run: () => unknown) {
  try {
    run()
  } catch (error) {
    expect(GatewayError.isInstance(error)).toBe(true)
    expect((error as GatewayError).status).toBe(400)
  }
}

describe('parseOpenAIEmbeddingsRequest', () => {
  it('accepts a well-formed body or refuses it with a 400, never anything else', () => {
    fc.assert(
      fc.property(openAIBody, (body) => {
        expectCheckedOr400(() => {
          const request = parseOpenAIEmbeddingsRequest(body)
          // What it accepts is what it says: inputs, in order, and a sound estimate.
          expect(request.inputs.length).toBeGreaterThan(0)
          expect(request.estimatedTokens).toBeGreaterThanOrEqual(request.inputs.length)
        })
      }),
      { numRuns: 500 },
    )
  })

  it('reads every input form', () => {
    expect(parseOpenAIEmbeddingsRequest({ model: 'm', input: 'abc' })).toMatchObject({
      inputs: ['abc'],
      single: true,
      encodingFormat: 'float',
    })
    expect(parseOpenAIEmbeddingsRequest({ model: 'm', input: [1, 2, 3] })).toMatchObject({
      inputs: [[1, 2, 3]],
      single: false,
      estimatedTokens: 3,
    })
    expect(
      parseOpenAIEmbeddingsRequest({ model: 'm', input: [[1], [2, 3]], encoding_format: 'base64' }),
    ).toMatchObject({ inputs: [[1], [2, 3]], encodingFormat: 'base64', estimatedTokens: 3 })
  })
})

describe('parseGeminiEmbedCall', () => {
  const part = fc.oneof(
    fc.record({ text: fc.oneof(fc.string(), anyJson) }),
    fc.record({ inlineData: fc.record({ mimeType: fc.string(), data: fc.string() }) }),
    anyJson,
  )
  const request = fc.record(
    {
      model: anyJson,
      content: fc.oneof(fc.record({ parts: fc.array(part, { maxLength: 3 }) }), anyJson),
      taskType: fc.oneof(fc.constantFrom('RETRIEVAL_QUERY', 'SUMMARY'), anyJson),
      title: fc.oneof(fc.string(), anyJson),
      outputDimensionality: fc.oneof(fc.integer({ min: -1, max: 70_000 }), anyJson),
      output_dimensionality: fc.integer({ min: -1, max: 70_000 }),
    },
    { requiredKeys: [] },
  )

  it('accepts a well-formed call or refuses it with a 400, never anything else', () => {
    fc.assert(
      fc.property(
        request,
        fc.array(request, { maxLength: 120 }),
        fc.boolean(),
        (one, many, batch) => {
          expectCheckedOr400(() => {
            const call = parseGeminiEmbedCall(batch ? { requests: many } : one, batch)
            expect(call.requests.length).toBe(batch ? many.length : 1)
            expect(call.requests.length).toBeLessThanOrEqual(100)
          })
        },
      ),
      { numRuns: 300 },
    )
  })

  it('joins text parts, reads snake_case, and marks a part that is not text', () => {
    const call = parseGeminiEmbedCall(
      {
        content: { parts: [{ text: 'a' }, { text: 'b' }] },
        task_type: 'CLUSTERING',
        output_dimensionality: 8,
      },
      false,
    )
    expect(call.requests[0]).toMatchObject({
      text: 'a\nb',
      taskType: 'CLUSTERING',
      outputDimensionality: 8,
    })
    const image = parseGeminiEmbedCall(
      {
        requests: [{ content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA' } }] } }],
      },
      true,
    )
    expect(image.requests[0]).toMatchObject({
      text: undefined,
      nonTextPart: 'requests[0].content.parts[0]',
    })
  })
})
