import { GatewayError } from '../../errors'
import { isJsonObject } from '../../internal/json'

/** Embedding vectors in input order: one per input, each the upstream's floats. */
export type EmbeddingVectors = readonly (readonly number[])[]

/**
 * A vector as OpenAI's `encoding_format: "base64"` carries it: the standard base64 of its floats
 * as little-endian float32, which is what the openai SDK decodes (`Float32Array` over the bytes).
 * The bytes go to `btoa` in slices, so a 3072-float vector is a handful of calls, not one per byte.
 */
export function floatsToBase64(values: readonly number[]): string {
  const bytes = new Uint8Array(values.length * 4)
  const view = new DataView(bytes.buffer)
  for (let index = 0; index < values.length; index++)
    view.setFloat32(index * 4, values[index]!, true)
  const slices: string[] = []
  for (let start = 0; start < bytes.length; start += 0x8000) {
    slices.push(String.fromCharCode(...bytes.subarray(start, start + 0x8000)))
  }
  return btoa(slices.join(''))
}

/**
 * The vectors of an OpenAI embeddings answer asked for `float`, placed by each item's `index`:
 * exactly `count` items, each index once. Anything else is the upstream's fault (502).
 */
export function readOpenAIVectors(body: Record<string, unknown>, count: number): EmbeddingVectors {
  const data = body['data']
  if (!Array.isArray(data) || data.length !== count) {
    throw badAnswer(
      `answered ${Array.isArray(data) ? data.length : 'no'} embeddings for ${count} inputs`,
    )
  }
  const vectors: (readonly number[] | undefined)[] = new Array(count)
  for (const item of data) {
    const index: unknown = isJsonObject(item) ? item['index'] : undefined
    const values: unknown = isJsonObject(item) ? item['embedding'] : undefined
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) {
      throw badAnswer('answered an embedding with no valid `index`')
    }
    if (vectors[index] !== undefined) throw badAnswer(`answered index ${index} twice`)
    vectors[index] = checkedFloats(values)
  }
  return vectors as EmbeddingVectors
}

/**
 * The vectors of a Gemini answer: `embedding.values` of `:embedContent`, or each
 * `embeddings[].values` of `:batchEmbedContents` (in request order, as Google answers).
 */
export function readGeminiVectors(
  body: Record<string, unknown>,
  batch: boolean,
  count: number,
): EmbeddingVectors {
  if (!batch) {
    const embedding = body['embedding']
    return [checkedFloats(isJsonObject(embedding) ? embedding['values'] : undefined)]
  }
  const embeddings = body['embeddings']
  if (!Array.isArray(embeddings) || embeddings.length !== count) {
    throw badAnswer(
      `answered ${Array.isArray(embeddings) ? embeddings.length : 'no'} embeddings for ${count} requests`,
    )
  }
  return embeddings.map((item: unknown) =>
    checkedFloats(isJsonObject(item) ? item['values'] : undefined),
  )
}

function checkedFloats(values: unknown): readonly number[] {
  if (!Array.isArray(values)) throw badAnswer('answered an embedding that is not a list of numbers')
  for (const value of values) {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw badAnswer('answered an embedding that is not a list of numbers')
    }
  }
  return values as number[]
}

function badAnswer(what: string): GatewayError {
  return new GatewayError('upstream_error', `The upstream ${what}.`)
}
