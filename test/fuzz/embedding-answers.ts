import { checkOpenAIEmbeddings } from '../helpers/fakes/embedding-fakes'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const vector = (length: number) => Array.from({ length }, (_, index) => index / length)

/**
 * OpenAI's `/embeddings` for the property suites: OpenAI's rules (any model name the suites
 * route to stands for `text-embedding-3-small`), then the list with usage, or OpenAI's 400.
 */
export function answerOpenAIEmbeddingsFuzz(body: Json): Response {
  const refused = checkOpenAIEmbeddings({ ...body, model: 'text-embedding-3-small' })
  if (refused !== undefined) return Response.json(refused.body, { status: refused.status })
  const input = body['input']
  const count = Array.isArray(input) && typeof input[0] !== 'number' ? input.length : 1
  const dimensions = typeof body['dimensions'] === 'number' ? body['dimensions'] : 4
  return Response.json({
    object: 'list',
    data: Array.from({ length: count }, (_, index) => ({
      object: 'embedding',
      index,
      embedding: vector(dimensions),
    })),
    model: body['model'],
    usage: { prompt_tokens: count, total_tokens: count },
  })
}

/**
 * Gemini's `:embedContent` / `:batchEmbedContents` for the property suites: at most 100
 * requests, each with `content.parts` and, in a batch, the path's model (else a problem no
 * upstream should see); Google's 400 otherwise. No usage, as Google answers.
 */
export function answerGeminiEmbedFuzz(
  body: Json,
  action: string,
  model: string | undefined,
  problems: string[],
): Response {
  const batch = action === 'batchEmbedContents'
  const requests = batch ? body['requests'] : [body]
  const refuse = (message: string) =>
    Response.json({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }, { status: 400 })
  if (!Array.isArray(requests) || requests.length === 0 || requests.length > 100)
    return refuse('* BatchEmbedContentsRequest.requests: between 1 and 100 requests')
  const embeddings: { values: number[] }[] = []
  for (const request of requests) {
    if (!isObject(request)) return refuse('* requests: must be objects')
    if (batch && request['model'] !== `models/${model}`)
      problems.push(`batch request model is ${String(request['model'])}`)
    const content = request['content']
    if (!isObject(content) || !Array.isArray(content['parts']) || content['parts'].length === 0)
      return refuse('* EmbedContentRequest.content.parts: must not be empty')
    const dimensions = request['outputDimensionality']
    embeddings.push({ values: vector(typeof dimensions === 'number' ? dimensions : 4) })
  }
  return Response.json(batch ? { embeddings } : { embedding: embeddings[0] })
}
