import { GatewayError } from '../../errors'
import type { PreparedRequest } from '../prepared-request'
import type { UpstreamProvider } from '../provider'
import { upstreamAnswerKey } from '../upstream-answer'

type Json = Record<string, unknown>

/**
 * A Gemini `batchEmbedContents` body as Vertex's `:predict` takes it: one instance per request,
 * `{content, task_type?, title?}` (the parts' texts joined by newlines), and the first request's
 * `outputDimensionality` as the call's parameter (Vertex takes one per call).
 *
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api
 */
export function prepareVertexPredict(request: PreparedRequest): PreparedRequest {
  const body = JSON.parse(request.body) as { requests?: Json[] }
  const requests = Array.isArray(body.requests) ? body.requests : []
  const instances = requests.map((item) => {
    const parts = ((item['content'] as Json | undefined)?.['parts'] ?? []) as Json[]
    const content = parts
      .map((part) => (typeof part['text'] === 'string' ? part['text'] : ''))
      .join('\n')
    return {
      content,
      ...(typeof item['taskType'] === 'string' ? { task_type: item['taskType'] } : {}),
      ...(typeof item['title'] === 'string' ? { title: item['title'] } : {}),
    }
  })
  const dimensions = requests[0]?.['outputDimensionality']
  request.body = JSON.stringify({
    instances,
    ...(typeof dimensions === 'number' ? { parameters: { outputDimensionality: dimensions } } : {}),
  })
  return request
}

/**
 * Vertex's `:predict` answer (`{"predictions":[{"embeddings":{"values","statistics"}}]}`) as
 * Gemini's `batchEmbedContents` answer (`{"embeddings":[{"values"}]}`). Another answer (an error)
 * passes unchanged.
 */
export async function predictAsBatchEmbed(response: Response): Promise<Response> {
  if (!response.ok) return response
  const body = (await response.json().catch(() => undefined)) as
    { predictions?: { embeddings?: { values?: number[] } }[] } | undefined
  if (body === undefined || !Array.isArray(body.predictions)) {
    throw new GatewayError('upstream_error', 'Vertex AI answered :predict without predictions.')
  }
  const embeddings = body.predictions.map((item) => ({ values: item.embeddings?.values ?? [] }))
  return new Response(JSON.stringify({ embeddings }), {
    status: response.status,
    headers: { 'content-type': 'application/json' },
  })
}

/**
 * The provider with its batch embedding calls answered through `send` and rewritten from
 * `:predict`'s shape; every other call keeps the provider's own path (the transport's direct one
 * included).
 */
export function withPredictEmbeddings(provider: UpstreamProvider): UpstreamProvider {
  const direct = (provider as { [upstreamAnswerKey]?: (...args: never[]) => unknown })[
    upstreamAnswerKey
  ]
  const send = provider.send.bind(provider)
  provider.send = async (call) => {
    const response = await send(call)
    return call.operation === 'batch-embed-contents' ? predictAsBatchEmbed(response) : response
  }
  if (direct !== undefined) {
    Object.assign(provider, {
      [upstreamAnswerKey]: (call: { operation: string }, signal: unknown) =>
        call.operation === 'batch-embed-contents'
          ? undefined
          : (direct as (call: unknown, signal: unknown) => unknown)(call, signal),
    })
  }
  return provider
}
