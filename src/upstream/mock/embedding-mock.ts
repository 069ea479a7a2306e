import { isJsonObject, parseJson, stringOf } from '../../internal/json'
import { floatsToBase64 } from '../../protocols/embeddings/embedding-vectors'
import { estimateTokens } from '../../usage/estimate-tokens'

/** The dimensions of the mock's vectors when the request asks for none. */
const mockDimensions = 8

/**
 * A deterministic unit vector for a text: the same text always embeds the same, so a demo's
 * similarity search behaves, without any model.
 */
export function mockVector(text: string, dimensions: number): number[] {
  let seed = 2166136261
  for (let index = 0; index < text.length; index++) {
    seed = Math.imul(seed ^ text.charCodeAt(index), 16777619) >>> 0
  }
  const values: number[] = []
  let norm = 0
  for (let index = 0; index < dimensions; index++) {
    seed = Math.imul(seed ^ (seed >>> 15), 2246822507) >>> 0
    const value = (seed / 0xffffffff) * 2 - 1
    values.push(value)
    norm += value * value
  }
  const scale = norm === 0 ? 1 : 1 / Math.sqrt(norm)
  return values.map((value) => Math.fround(value * scale))
}

/** Answers an OpenAI `/embeddings` body as OpenAI would: the list, with `usage`. */
export function answerOpenAIEmbeddings(body: string, model: string): Response {
  const request = objectOf(body)
  const input = request['input']
  const inputs: unknown[] = Array.isArray(input) && typeof input[0] !== 'number' ? input : [input]
  const dimensions =
    typeof request['dimensions'] === 'number' ? request['dimensions'] : mockDimensions
  let tokens = 0
  const data = inputs.map((item, index) => {
    const text = typeof item === 'string' ? item : JSON.stringify(item)
    tokens += Array.isArray(item) ? item.length : estimateTokens(text)
    const vector = mockVector(text, dimensions)
    const embedding = request['encoding_format'] === 'base64' ? floatsToBase64(vector) : vector
    return { object: 'embedding', index, embedding }
  })
  return Response.json({
    object: 'list',
    data,
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  })
}

/** Answers a Gemini `:embedContent` or `:batchEmbedContents` body as Google would (no usage). */
export function answerGeminiEmbed(body: string, batch: boolean): Response {
  const request = objectOf(body)
  const embed = (item: unknown) => {
    const one = isJsonObject(item) ? item : {}
    const content = isJsonObject(one['content']) ? one['content'] : {}
    const parts = Array.isArray(content['parts']) ? content['parts'] : []
    const text = parts.map((part) => (isJsonObject(part) ? stringOf(part['text']) : '')).join('\n')
    const dimensions = one['outputDimensionality']
    return {
      values: mockVector(text, typeof dimensions === 'number' ? dimensions : mockDimensions),
    }
  }
  if (!batch) return Response.json({ embedding: embed(request) })
  const requests = Array.isArray(request['requests']) ? request['requests'] : []
  return Response.json({ embeddings: requests.map(embed) })
}

function objectOf(body: string): Record<string, unknown> {
  const parsed = parseJson(body)
  return parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}
}
