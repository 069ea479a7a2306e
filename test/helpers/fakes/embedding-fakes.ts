import { http, HttpResponse } from 'msw'
import { geminiError, openAIError, type FakeError } from './vendor-errors'

/**
 * Fakes of OpenAI's `POST /v1/embeddings` and Gemini's `:embedContent` / `:batchEmbedContents`
 * that enforce the vendors' documented rules — never a lenient echo — and answer with vectors a
 * test can predict (`fakeVector`), so that order and dimensions are checked end to end.
 *
 * - OpenAI: a known embedding model; `input` a non-empty string, or at most 2048 non-empty
 *   strings or token arrays; at most 8192 tokens an input and 300,000 a request; `dimensions`
 *   only on `text-embedding-3-*`, at most the model's; `encoding_format` `float` or `base64`;
 *   `usage` in every answer.
 *   (https://platform.openai.com/docs/api-reference/embeddings/create)
 * - Gemini: an embedding model in the path; `content` with parts; `taskType` one of Google's;
 *   `outputDimensionality` at most the model's; a batch of at most 100 requests, each naming the
 *   path's model; no usage in the answer. (https://ai.google.dev/api/embeddings)
 */

/** The OpenAI embedding models the fake serves, with their native dimensions. */
export const openAIEmbeddingModels: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
}

/** The Gemini embedding models the fake serves, with their native dimensions. */
export const geminiEmbeddingModels: Record<string, number> = {
  'gemini-embedding-001': 3072,
  'text-embedding-004': 768,
}

const taskTypes = new Set([
  'TASK_TYPE_UNSPECIFIED',
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
])

/**
 * The vector the fakes answer for a text: a pure function of the text and the length, in
 * multiples of 1/1024, which float32 holds exactly (so base64 round trips compare equal).
 */
export function fakeVector(text: string, dimensions: number): number[] {
  let hash = 7
  for (const char of text) hash = (hash * 31 + char.codePointAt(0)!) % 1_000_003
  return Array.from(
    { length: dimensions },
    (_, index) => (((hash + index * 97) % 2048) - 1024) / 1024,
  )
}

/** Little-endian float32 base64, as OpenAI sends `encoding_format: "base64"`. */
function toBase64(values: number[]): string {
  return Buffer.from(new Float32Array(values).buffer).toString('base64')
}

/** About four characters a token: the rule the fakes meter text by. */
export function fakeTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

/** One call a fake received. */
export type EmbeddingCall = { url: string; headers: Headers; body: Record<string, any> }

/** What a fake does with the next call: answer (the default) or fail as told. */
export type EmbeddingFakeState = {
  calls: EmbeddingCall[]
  /** Answers these calls with this error first, then normally (one entry a call). */
  failures: { status: number; body: object }[]
}

/** msw handler for OpenAI's `/embeddings` under `baseUrl`, checking the Bearer `apiKey`. */
export function openAIEmbeddingsHandler(
  baseUrl: string,
  apiKey: string,
  state: EmbeddingFakeState,
) {
  return http.post(`${baseUrl}/embeddings`, async ({ request }) => {
    const body = (await request.json()) as Record<string, any>
    state.calls.push({ url: request.url, headers: request.headers, body })
    if (request.headers.get('authorization') !== `Bearer ${apiKey}`) {
      return HttpResponse.json(
        {
          error: {
            message: 'Incorrect API key provided.',
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        },
        { status: 401 },
      )
    }
    const failure = state.failures.shift()
    if (failure !== undefined) return HttpResponse.json(failure.body, { status: failure.status })
    const refused = checkOpenAIEmbeddings(body)
    if (refused !== undefined) return HttpResponse.json(refused.body, { status: refused.status })
    const native = openAIEmbeddingModels[body['model']]!
    const dimensions: number = body['dimensions'] ?? native
    const inputs: (string | number[])[] =
      typeof body['input'] === 'string' || typeof body['input'][0] === 'number'
        ? [body['input']]
        : body['input']
    let tokens = 0
    const data = inputs.map((input, index) => {
      const text = typeof input === 'string' ? input : input.join(' ')
      tokens += typeof input === 'string' ? fakeTokens(input) : input.length
      const values = fakeVector(text, dimensions)
      return {
        object: 'embedding',
        index,
        embedding: body['encoding_format'] === 'base64' ? toBase64(values) : values,
      }
    })
    // OpenAI lists the data in input order (clients such as LangChain rely on it).
    return HttpResponse.json({
      object: 'list',
      data,
      model: `${body['model']}`,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    })
  })
}

/** OpenAI's rules for an embeddings body; `undefined` when it passes. */
export function checkOpenAIEmbeddings(body: Record<string, any>): FakeError | undefined {
  const model = body['model']
  if (typeof model !== 'string' || openAIEmbeddingModels[model] === undefined) {
    return {
      status: 404,
      body: {
        error: {
          message: `The model \`${String(model)}\` does not exist or you do not have access to it.`,
          type: 'invalid_request_error',
          param: null,
          code: 'model_not_found',
        },
      },
    }
  }
  const input = body['input']
  const inputs: unknown[] =
    typeof input === 'string' || (Array.isArray(input) && typeof input[0] === 'number')
      ? [input]
      : Array.isArray(input)
        ? input
        : []
  if (inputs.length === 0 || inputs.length > 2048) {
    return openAIError(
      "'input' must be a non-empty string or array of at most 2048 items.",
      'input',
      null,
    )
  }
  let total = 0
  for (const item of inputs) {
    const tokens =
      typeof item === 'string' ? fakeTokens(item) : Array.isArray(item) ? item.length : -1
    if (tokens <= 0) return openAIError("'$.input' is invalid.", 'input', null)
    if (tokens > 8192) {
      return openAIError(
        `This model's maximum context length is 8192 tokens, however you requested ${tokens} tokens.`,
        null,
        null,
      )
    }
    total += tokens
  }
  if (total > 300_000) {
    return openAIError(
      `Requested ${total} tokens, max 300000 tokens per request`,
      null,
      'max_tokens_per_request',
    )
  }
  const dimensions = body['dimensions']
  if (dimensions !== undefined) {
    if (!model.startsWith('text-embedding-3')) {
      return openAIError('This model does not support specifying dimensions.', null, null)
    }
    if (
      !Number.isInteger(dimensions) ||
      dimensions < 1 ||
      dimensions > openAIEmbeddingModels[model]!
    ) {
      return openAIError(`Invalid 'dimensions': ${String(dimensions)}.`, 'dimensions', null)
    }
  }
  const format = body['encoding_format']
  if (format !== undefined && format !== 'float' && format !== 'base64') {
    return openAIError("'encoding_format' must be 'float' or 'base64'.", 'encoding_format', null)
  }
  return undefined
}

/** msw handler for Gemini's `:embedContent` and `:batchEmbedContents`, checking `x-goog-api-key`. */
export function geminiEmbeddingsHandler(
  baseUrl: string,
  apiKey: string,
  state: EmbeddingFakeState,
) {
  return http.post(`${baseUrl}/v1beta/models/*`, async ({ request }) => {
    const path = decodeURIComponent(new URL(request.url).pathname)
    const [, model = '', action = ''] = /\/models\/([^:]+):(\w+)$/.exec(path) ?? []
    if (action !== 'embedContent' && action !== 'batchEmbedContents') return undefined
    const body = (await request.json()) as Record<string, any>
    state.calls.push({ url: request.url, headers: request.headers, body })
    if (request.headers.get('x-goog-api-key') !== apiKey) {
      return HttpResponse.json(
        {
          error: {
            code: 400,
            message: 'API key not valid. Please pass a valid API key.',
            status: 'INVALID_ARGUMENT',
          },
        },
        { status: 400 },
      )
    }
    const failure = state.failures.shift()
    if (failure !== undefined) return HttpResponse.json(failure.body, { status: failure.status })
    const native = geminiEmbeddingModels[model]
    if (native === undefined) {
      return HttpResponse.json(
        {
          error: {
            code: 404,
            message: `models/${model} is not found for API version v1beta, or is not supported for ${action}.`,
            status: 'NOT_FOUND',
          },
        },
        { status: 404 },
      )
    }
    const requests: Record<string, any>[] =
      action === 'embedContent' ? [body] : Array.isArray(body['requests']) ? body['requests'] : []
    if (action === 'batchEmbedContents' && (requests.length === 0 || requests.length > 100)) {
      const refused = geminiError(
        '* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch\n',
      )
      return HttpResponse.json(refused.body, { status: refused.status })
    }
    const embeddings: { values: number[] }[] = []
    for (const [index, item] of requests.entries()) {
      const refused = checkGeminiEmbedRequest(
        item,
        model,
        native,
        action === 'batchEmbedContents',
        index,
      )
      if (refused !== undefined) return HttpResponse.json(refused.body, { status: refused.status })
      const text = (item['content']['parts'] as { text?: string }[])
        .map((part) => part.text ?? '')
        .join('\n')
      embeddings.push({ values: fakeVector(text, item['outputDimensionality'] ?? native) })
    }
    return HttpResponse.json(
      action === 'embedContent' ? { embedding: embeddings[0] } : { embeddings },
    )
  })
}

function checkGeminiEmbedRequest(
  item: Record<string, any>,
  model: string,
  native: number,
  batch: boolean,
  index: number,
): FakeError | undefined {
  const at = batch ? `requests[${index}].` : ''
  if (batch && item['model'] !== `models/${model}`) {
    return geminiError(
      `* BatchEmbedContentsRequest.${at}model: unexpected model name format; the model of each request must match the batch's, models/${model}\n`,
    )
  }
  const parts = item['content']?.['parts']
  if (!Array.isArray(parts) || parts.length === 0) {
    return geminiError(
      `* EmbedContentRequest.${at}content.parts: contents.parts must not be empty.\n`,
    )
  }
  for (const part of parts) {
    if (typeof part?.text !== 'string') {
      return geminiError(
        `* EmbedContentRequest.${at}content.parts: only text parts can be embedded by models/${model}.\n`,
      )
    }
  }
  const taskType = item['taskType']
  if (taskType !== undefined && !taskTypes.has(taskType)) {
    return geminiError(
      `Invalid value at '${at}task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), "${taskType}"`,
    )
  }
  const dimensions = item['outputDimensionality']
  if (
    dimensions !== undefined &&
    (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > native)
  ) {
    return geminiError(
      `* EmbedContentRequest.${at}output_dimensionality: must be between 1 and ${native}.\n`,
    )
  }
  return undefined
}
