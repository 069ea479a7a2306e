import { GatewayError } from '../../errors'
import { isJsonObject } from '../../internal/json'
import { estimateTokens } from '../../usage/estimate-tokens'
import { maxEmbeddingDimensions, maxGeminiBatchRequests } from './embedding-limits'

/** Gemini's embedding task types. @see https://ai.google.dev/api/embeddings#tasktype */
export const geminiTaskTypes = [
  'TASK_TYPE_UNSPECIFIED',
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
] as const

/** One Gemini `EmbedContentRequest`, checked: what translation needs of it. */
export type GeminiEmbedRequest = {
  /** The text of its `content.parts`, joined by newlines; `undefined` when a part is not text. */
  text: string | undefined
  /** Where its first part that is not text is (`requests[2].content.parts[0]`), if any. */
  nonTextPart: string | undefined
  taskType: string | undefined
  title: string | undefined
  outputDimensionality: number | undefined
  /** Its `outputDimensionality` member's path, for errors. */
  path: string
}

/** A Gemini embedding call, checked: its requests in order, and the input estimate. */
export type GeminiEmbedCall = {
  requests: readonly GeminiEmbedRequest[]
  /** `batchEmbedContents` (an `embeddings` list answers it), or `embedContent` (one `embedding`). */
  batch: boolean
  estimatedTokens: number
}

/**
 * Checks a Gemini `:embedContent` body (`content`, `taskType`, `title`, `outputDimensionality`)
 * or a `:batchEmbedContents` body (`requests`, at most 100, each such a body). The path names the
 * model: a `model` a request names is not read (passthrough sets it to the upstream model's, as
 * countTokens does its `generateContentRequest.model`). Google's REST API reads snake_case names too, and so does this. A bad
 * field is a 400 naming it, in Google's shape.
 *
 * @see https://ai.google.dev/api/embeddings
 */
export function parseGeminiEmbedCall(value: unknown, batch: boolean): GeminiEmbedCall {
  if (!isJsonObject(value)) throw invalid('The request body must be a JSON object.', undefined)
  let requests: GeminiEmbedRequest[]
  if (batch) {
    const list = value['requests']
    if (!Array.isArray(list) || list.length === 0) {
      throw invalid('`requests` must be a non-empty array of embed requests.', 'requests')
    }
    if (list.length > maxGeminiBatchRequests) {
      throw invalid(
        `\`requests\` holds ${list.length} items; a batch may hold at most ${maxGeminiBatchRequests}.`,
        'requests',
      )
    }
    requests = list.map((item: unknown, index) => readRequest(item, `requests[${index}]`))
  } else {
    requests = [readRequest(value, '')]
  }
  let estimatedTokens = 0
  for (const request of requests) {
    estimatedTokens += estimateTokens(request.text ?? '') + estimateTokens(request.title ?? '')
  }
  return { requests, batch, estimatedTokens }
}

function readRequest(value: unknown, at: string): GeminiEmbedRequest {
  const name = (member: string) => (at === '' ? member : `${at}.${member}`)
  if (!isJsonObject(value)) throw invalid(`\`${at}\` must be an object.`, at)
  const content = member(value, 'content', 'content')
  if (!isJsonObject(content) || !Array.isArray(content['parts']) || content['parts'].length === 0) {
    throw invalid(
      `\`${name('content')}\` must be a Content with at least one part.`,
      name('content'),
    )
  }
  const texts: string[] = []
  let nonTextPart: string | undefined
  content['parts'].forEach((part: unknown, index) => {
    const path = `${name('content')}.parts[${index}]`
    if (!isJsonObject(part)) throw invalid(`\`${path}\` must be a Part object.`, path)
    const text = part['text']
    if (typeof text === 'string') texts.push(text)
    else if (text !== undefined) throw invalid(`\`${path}.text\` must be a string.`, `${path}.text`)
    else nonTextPart ??= path
  })
  const taskType = member(value, 'taskType', 'task_type')
  if (taskType !== undefined && !(geminiTaskTypes as readonly unknown[]).includes(taskType)) {
    throw invalid(
      `\`${name('taskType')}\` must be one of ${geminiTaskTypes.join(', ')}.`,
      name('taskType'),
    )
  }
  const title = member(value, 'title', 'title')
  if (title !== undefined && typeof title !== 'string') {
    throw invalid(`\`${name('title')}\` must be a string.`, name('title'))
  }
  const dimensions = member(value, 'outputDimensionality', 'output_dimensionality')
  const path = name('outputDimensionality')
  if (
    dimensions !== undefined &&
    (typeof dimensions !== 'number' ||
      !Number.isInteger(dimensions) ||
      dimensions < 1 ||
      dimensions > maxEmbeddingDimensions)
  ) {
    throw invalid(`\`${path}\` must be a positive integer.`, path)
  }
  return {
    text: nonTextPart === undefined ? texts.join('\n') : undefined,
    nonTextPart,
    taskType: taskType as string | undefined,
    title: title as string | undefined,
    outputDimensionality: dimensions as number | undefined,
    path,
  }
}

/** An own member by its camelCase or snake_case name; `null` reads as absent, as Google's does. */
function member(value: Record<string, unknown>, camel: string, snake: string): unknown {
  const found = Object.hasOwn(value, camel)
    ? value[camel] // lookup-safe: own
    : Object.hasOwn(value, snake)
      ? value[snake] // lookup-safe: own
      : undefined
  return found === null ? undefined : found
}

function invalid(message: string, param: string | undefined): GatewayError {
  return new GatewayError('invalid_request', message, { param: param === '' ? undefined : param })
}
