import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { parseClientJson } from '../http/client-json'
import type { GatewayAnswer } from '../http/gateway-answer'
import { spliceClientJson } from '../http/splice-body'
import { isJsonObject } from '../internal/json'
import { geminiEmbeddingAnswer } from '../protocols/embeddings/embedding-answers'
import { geminiToOpenAIEmbedding } from '../protocols/embeddings/embedding-translate'
import { readOpenAIVectors } from '../protocols/embeddings/embedding-vectors'
import { parseGeminiEmbedCall } from '../protocols/embeddings/gemini-embed-request'
import { readOpenAIUsage } from '../protocols/openai/canonical-usage'
import type { ClientJson } from '../http/client-json'
import {
  checkEmbeddingAnswerSize,
  embeddingFamily,
  noStream,
  routeEmbedding,
} from '../relay/embedding-call'
import { relayCall, type CallPlan } from '../relay/relay-call'
import { resolveCall } from '../relay/route-call'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import { geminiCallName } from './gemini-generate'
import type { RouteDefinition } from './route-definition'

/**
 * `POST /v1beta/models/{model}:embedContent` and `:batchEmbedContents`, in Google's shape, through
 * the attempt loop as generation is. To a Gemini upstream it is passthrough (each batch request's
 * `model` set to the upstream model's, as Google requires it to match the path); Google's answer
 * reports no usage, so the record settles at the gateway's input estimate, flagged `estimated`.
 * To an OpenAI upstream it is translated (`geminiToOpenAIEmbedding`): the vectors come back in
 * request order, and the usage OpenAI reports is recorded exactly.
 */
export async function handleGeminiEmbed(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  batch: boolean,
): Promise<GatewayAnswer> {
  const name = geminiCallName(scope)
  // The model is in the path: an unknown one is answered before the body is even read.
  const route = await resolveCall(runtime, scope, name)
  const json = parseClientJson(await scope.request.text(runtime.maxBodyBytes))
  const call = parseGeminiEmbedCall(json.value, batch)
  const routed = routeEmbedding(scope, route, {
    model: name,
    estimatedTokens: call.estimatedTokens,
    protocol: 'gemini',
    body: json.value,
  })
  return relayCall(runtime, scope, routed, (common): CallPlan => {
    const family = embeddingFamily(common)
    const upstreamModel = common.route.model.upstreamModel
    // The largest asked for bounds them all; one request asking none falls to the profile's.
    const asked = call.requests.map((request) => request.outputDimensionality)
    const dimensions = asked.includes(undefined) ? undefined : Math.max(...(asked as number[]))
    checkEmbeddingAnswerSize(runtime, common.route, call.requests.length, dimensions, 'requests')
    const plan = {
      ...common,
      headers: buildUpstreamHeaders(scope.request.headers, runtime.forwardHeaders),
      translator: noStream,
    }
    if (family === 'gemini') {
      return {
        ...plan,
        operation: batch ? 'batch-embed-contents' : 'embed-content',
        body: geminiEmbedPassthroughBody(json, upstreamModel, batch),
        answerJson: (text, body) => ({ body: text, usage: geminiEmbedUsage(body) }),
      }
    }
    return {
      ...plan,
      operation: 'embeddings',
      body: geminiToOpenAIEmbedding(call, upstreamModel, common.route.group.id),
      answerJson: (_text, body) => ({
        body: geminiEmbeddingAnswer(readOpenAIVectors(body, call.requests.length), batch),
        usage: readOpenAIUsage(body['usage']),
      }),
    }
  })
}

/**
 * The body a Gemini upstream gets: the client's, with a `model` it names set to the upstream
 * model, and in a batch every request's `model` so set, whatever the client wrote there: the path
 * names the model, and Google refuses a batch whose requests name another.
 */
function geminiEmbedPassthroughBody(json: ClientJson, upstreamModel: string, batch: boolean) {
  const body = isJsonObject(json.value) ? json.value : {}
  const model = `models/${upstreamModel}`
  const changes: Record<string, unknown> = {}
  if (Object.hasOwn(body, 'model')) changes['model'] = model
  if (batch && Array.isArray(body['requests'])) {
    changes['requests'] = body['requests'].map((request: unknown) =>
      isJsonObject(request) ? { ...request, model } : request,
    )
  }
  return spliceClientJson(json, changes)
}

/**
 * The usage of a Gemini embedding answer: none today (the record then settles at the estimate,
 * flagged `estimated`); a `usageMetadata.promptTokenCount`, should Google add one, is exact.
 */
function geminiEmbedUsage(body: Record<string, unknown>) {
  const usage = body['usageMetadata']
  if (!isJsonObject(usage) || typeof usage['promptTokenCount'] !== 'number') return undefined
  return readOpenAIUsage({ prompt_tokens: usage['promptTokenCount'] })
}

/** Gemini's `:embedContent` and `:batchEmbedContents`. */
export const geminiEmbedRoutes: readonly RouteDefinition[] = [
  {
    name: 'gemini.embed',
    method: 'POST',
    paths: ['/v1beta/models/{model}:embedContent'],
    errors: 'gemini',
    handler: (runtime, scope) => handleGeminiEmbed(runtime, scope, false),
  },
  {
    name: 'gemini.batch_embed',
    method: 'POST',
    paths: ['/v1beta/models/{model}:batchEmbedContents'],
    errors: 'gemini',
    handler: (runtime, scope) => handleGeminiEmbed(runtime, scope, true),
  },
]
