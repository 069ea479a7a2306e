import { GatewayError } from '../../errors'
import { maxGeminiBatchRequests } from './embedding-limits'
import type { GeminiEmbedCall } from './gemini-embed-request'
import type { OpenAIEmbeddingsRequest } from './openai-embeddings-request'

/** A Gemini embedding call, ready to send: its operation (the upstream's names), and its body. */
export type EmbeddingUpstreamCall = {
  operation: 'embed-content' | 'batch-embed-contents'
  body: string
  batch: boolean
}

/**
 * An OpenAI embeddings request for a Gemini upstream: one string → `:embedContent`, a list →
 * `:batchEmbedContents` (one request per input, in order, each naming the upstream model, as
 * Google requires); `dimensions` → `outputDimensionality`. Gemini embeds text, not token ids, and
 * takes at most 100 requests a batch: either is a 400 naming `input` and the group.
 */
export function openAIToGeminiEmbedding(
  request: OpenAIEmbeddingsRequest,
  upstreamModel: string,
  groupId: string,
): EmbeddingUpstreamCall {
  const texts = request.inputs.map((input, index) => {
    if (typeof input === 'string') return input
    const param = request.inputs.length === 1 ? 'input' : `input[${index}]`
    throw new GatewayError(
      'invalid_request',
      `\`${param}\` is token ids; group \`${groupId}\` is a Gemini group, which embeds text only.`,
      { param: 'input' },
    )
  })
  if (texts.length > maxGeminiBatchRequests) {
    throw new GatewayError(
      'invalid_request',
      `\`input\` holds ${texts.length} items; group \`${groupId}\` is a Gemini group, which embeds at most ${maxGeminiBatchRequests} per request.`,
      { param: 'input' },
    )
  }
  const dimensions =
    request.dimensions === undefined ? {} : { outputDimensionality: request.dimensions }
  if (request.single) {
    return {
      operation: 'embed-content',
      body: JSON.stringify({ content: { parts: [{ text: texts[0] }] }, ...dimensions }),
      batch: false,
    }
  }
  const model = `models/${upstreamModel}`
  return {
    operation: 'batch-embed-contents',
    body: JSON.stringify({
      requests: texts.map((text) => ({ model, content: { parts: [{ text }] }, ...dimensions })),
    }),
    batch: true,
  }
}

/**
 * A Gemini embedding call for an OpenAI upstream: each request's text (its parts' text joined by
 * newlines) becomes one item of `input`, in order; `outputDimensionality` → `dimensions`, which
 * must then be the same for every request (OpenAI takes one per call); floats are asked for.
 * `taskType` and `title` have no OpenAI counterpart and are dropped. A part that is not text, or
 * an empty text, is a 400 naming it.
 */
export function geminiToOpenAIEmbedding(
  call: GeminiEmbedCall,
  upstreamModel: string,
  groupId: string,
): string {
  const first = call.requests[0]?.outputDimensionality
  const input = call.requests.map((request) => {
    if (request.text === undefined) {
      throw new GatewayError(
        'invalid_request',
        `\`${request.nonTextPart}\` is not text; group \`${groupId}\` is an OpenAI group, which embeds text only.`,
        { param: request.nonTextPart },
      )
    }
    if (request.text === '') {
      const param = request.path.replace(/outputDimensionality$/, 'content')
      throw new GatewayError('invalid_request', `\`${param}\` has no text to embed.`, { param })
    }
    if (request.outputDimensionality !== first) {
      throw new GatewayError(
        'invalid_request',
        `\`${request.path}\` differs from the first request's; group \`${groupId}\` is an OpenAI group, which takes one dimensionality per call.`,
        { param: request.path },
      )
    }
    return request.text
  })
  return JSON.stringify({
    model: upstreamModel,
    input,
    ...(first === undefined ? {} : { dimensions: first }),
    encoding_format: 'float',
  })
}
