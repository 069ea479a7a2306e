import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { parseClientJson, readModelField, scanClientJson } from '../http/client-json'
import { spliceClientJson } from '../http/splice-body'
import type { GatewayAnswer } from '../http/gateway-answer'
import { openAIEmbeddingList } from '../protocols/embeddings/embedding-answers'
import { openAIToGeminiEmbedding } from '../protocols/embeddings/embedding-translate'
import { readGeminiVectors } from '../protocols/embeddings/embedding-vectors'
import { parseOpenAIEmbeddingsRequest } from '../protocols/embeddings/openai-embeddings-request'
import { readOpenAIUsage } from '../protocols/openai/canonical-usage'
import {
  checkEmbeddingAnswerSize,
  embeddingFamily,
  noStream,
  routeEmbedding,
} from '../relay/embedding-call'
import { relayCall, type CallPlan } from '../relay/relay-call'
import { passthroughJsonAnswer, resolveCall } from '../relay/route-call'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import type { RouteDefinition } from './route-definition'

/**
 * `POST /v1/embeddings`, in OpenAI's shape, through the attempt loop as generation is (the key's
 * groups, limits and budgets; retries, failover and fallbacks). To an OpenAI upstream it is
 * passthrough: the body goes with only `model` rewritten, the answer comes back as sent. To a
 * Gemini upstream it is translated (`openAIToGeminiEmbedding`), the floats Google answers written
 * back as OpenAI's list — packed as base64 by the gateway when the client asked for it — with the
 * gateway's estimate as `usage`, since Google reports none; the usage record says `estimated`.
 */
export async function handleEmbeddings(
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<GatewayAnswer> {
  const scanned = scanClientJson(await scope.request.text(runtime.maxBodyBytes))
  const route = await resolveCall(runtime, scope, readModelField(scanned))
  const json = parseClientJson(scanned)
  const request = parseOpenAIEmbeddingsRequest(json.value)
  const routed = routeEmbedding(scope, route, {
    model: request.model,
    estimatedTokens: request.estimatedTokens,
    protocol: 'openai',
    body: json.value,
  })
  return relayCall(runtime, scope, routed, (common): CallPlan => {
    const family = embeddingFamily(common)
    const upstreamModel = common.route.model.upstreamModel
    checkEmbeddingAnswerSize(
      runtime,
      common.route,
      request.inputs.length,
      request.dimensions,
      'input',
    )
    const plan = {
      ...common,
      headers: buildUpstreamHeaders(scope.request.headers, runtime.forwardHeaders),
      translator: noStream,
    }
    if (family === 'openai') {
      return {
        ...plan,
        operation: 'embeddings',
        body: spliceClientJson(json, { model: upstreamModel }),
        answerJson: (text, body) =>
          passthroughJsonAnswer(text, body, 'usage', readOpenAIUsage, {
            modelMember: 'model',
            callName: common.model,
          }),
      }
    }
    const upstream = openAIToGeminiEmbedding(request, upstreamModel, common.route.group.id)
    return {
      ...plan,
      operation: upstream.operation,
      body: upstream.body,
      answerJson: (_text, body) => ({
        body: openAIEmbeddingList(readGeminiVectors(body, upstream.batch, request.inputs.length), {
          encoding: request.encodingFormat,
          model: common.model,
          promptTokens: request.estimatedTokens,
        }),
        // Google reports no usage: the record settles at the input estimate, flagged `estimated`.
        usage: undefined,
      }),
    }
  })
}

/** `POST /v1/embeddings`, also without `/v1`. */
export const embeddingsRoutes: readonly RouteDefinition[] = [
  {
    name: 'embeddings',
    method: 'POST',
    paths: ['/v1/embeddings', '/embeddings'],
    errors: 'openai',
    handler: handleEmbeddings,
  },
]
