import { GatewayError } from '../../errors'
import { isJsonObject } from '../../internal/json'
import { estimateTokens } from '../../usage/estimate-tokens'
import {
  maxEmbeddingDimensions,
  maxOpenAIEmbeddingInputs,
  maxTokensPerEmbeddingInput,
  maxTokensPerEmbeddingRequest,
} from './embedding-limits'

/** One input to embed: text, or the token ids of a text (OpenAI's token-array form). */
export type EmbeddingInput = string | readonly number[]

/** An OpenAI `POST /v1/embeddings` request, checked. */
export type OpenAIEmbeddingsRequest = {
  model: string
  /** The inputs, in the client's order: the answer's `index` is a position here. */
  inputs: readonly EmbeddingInput[]
  /** Whether `input` was one string (not a list). */
  single: boolean
  dimensions: number | undefined
  /** `base64` packs each vector as little-endian float32; OpenAI's default is `float`. */
  encodingFormat: 'float' | 'base64'
  /** The conservative input estimate: exact for token arrays, about four characters a token for text. */
  estimatedTokens: number
}

/**
 * Checks an OpenAI embeddings body: `input` a non-empty string, an array of them, an array of
 * token ids or an array of such arrays (at most 2048 inputs, none empty, a token array at most
 * 8192 tokens, all together at most 300,000 tokens by the gateway's estimate); `dimensions` a
 * positive integer; `encoding_format` `float` or `base64`; `user` a string. A bad field is a 400
 * naming it, in OpenAI's shape.
 *
 * @see https://platform.openai.com/docs/api-reference/embeddings/create
 */
export function parseOpenAIEmbeddingsRequest(value: unknown): OpenAIEmbeddingsRequest {
  if (!isJsonObject(value)) throw invalid('The request body must be a JSON object.', undefined)
  const model = value['model']
  if (typeof model !== 'string' || model === '') {
    throw invalid('Invalid `model`: `model` must be a non-empty string.', 'model')
  }
  const user = value['user']
  if (user !== undefined && user !== null && typeof user !== 'string') {
    throw invalid('`user` must be a string.', 'user')
  }
  const inputs = readInputs(Object.hasOwn(value, 'input') ? value['input'] : undefined)
  let estimatedTokens = 0
  for (const input of inputs)
    estimatedTokens += typeof input === 'string' ? estimateTokens(input) : input.length
  if (estimatedTokens > maxTokensPerEmbeddingRequest) {
    throw invalid(
      `\`input\` holds about ${estimatedTokens} tokens; one request may hold at most ${maxTokensPerEmbeddingRequest}.`,
      'input',
    )
  }
  return {
    model,
    inputs,
    single: typeof value['input'] === 'string',
    dimensions: readDimensions(value['dimensions']),
    encodingFormat: readEncodingFormat(value['encoding_format']),
    estimatedTokens,
  }
}

function readInputs(input: unknown): EmbeddingInput[] {
  if (typeof input === 'string') {
    if (input === '') throw invalid('`input` cannot be an empty string.', 'input')
    return [input]
  }
  if (!Array.isArray(input)) {
    throw invalid(
      '`input` must be a string, an array of strings, an array of token ids or an array of such arrays.',
      'input',
    )
  }
  if (input.length === 0) throw invalid('`input` cannot be an empty array.', 'input')
  if (input.length > maxOpenAIEmbeddingInputs) {
    throw invalid(
      `\`input\` holds ${input.length} items; one request may hold at most ${maxOpenAIEmbeddingInputs}.`,
      'input',
    )
  }
  // A flat array of integers is one input's tokens.
  if (typeof input[0] === 'number') return [readTokens(input, 'input')]
  return input.map((item: unknown, index) => {
    const param = `input[${index}]`
    if (typeof item === 'string') {
      if (item === '') throw invalid(`\`${param}\` cannot be an empty string.`, param)
      return item
    }
    if (Array.isArray(item)) return readTokens(item, param)
    throw invalid(`\`${param}\` must be a string or an array of token ids.`, param)
  })
}

function readTokens(tokens: readonly unknown[], param: string): number[] {
  if (tokens.length === 0) throw invalid(`\`${param}\` cannot be an empty array.`, param)
  if (tokens.length > maxTokensPerEmbeddingInput) {
    throw invalid(
      `\`${param}\` holds ${tokens.length} tokens; an input may hold at most ${maxTokensPerEmbeddingInput}.`,
      param,
    )
  }
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]
    if (typeof token !== 'number' || !Number.isInteger(token) || token < 0) {
      throw invalid(`\`${param}[${index}]\` must be a token id (a non-negative integer).`, param)
    }
  }
  return tokens as number[]
}

function readDimensions(dimensions: unknown): number | undefined {
  if (dimensions === undefined || dimensions === null) return undefined
  if (
    typeof dimensions !== 'number' ||
    !Number.isInteger(dimensions) ||
    dimensions < 1 ||
    dimensions > maxEmbeddingDimensions
  ) {
    throw invalid('`dimensions` must be a positive integer.', 'dimensions')
  }
  return dimensions
}

function readEncodingFormat(format: unknown): 'float' | 'base64' {
  if (format === undefined || format === null || format === 'float') return 'float'
  if (format === 'base64') return 'base64'
  throw invalid('`encoding_format` must be "float" or "base64".', 'encoding_format')
}

function invalid(message: string, param: string | undefined): GatewayError {
  return new GatewayError('invalid_request', message, { param })
}
