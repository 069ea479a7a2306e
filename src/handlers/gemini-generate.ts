import { toTokenUsage } from '../canonical/usage'
import { GatewayError } from '../errors'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { parseClientJson } from '../http/client-json'
import { validateBody } from '../http/validate-body'
import { geminiUsageToCanonical } from '../protocols/gemini/canonical-usage'
import { geminiPassthroughStream } from '../protocols/gemini/passthrough-stream'
import { decodeGeminiRequest } from '../protocols/gemini/request-decode'
import { normalizeGeminiBody } from '../protocols/gemini/normalize-body'
import { geminiPassthroughBody } from '../protocols/gemini/passthrough-body'
import {
  geminiArrayLimits,
  geminiGenerateContentRequestSchema,
} from '../protocols/gemini/request-schema'
import { clientCodecs } from '../relay/protocol-codecs'
import { relayCall, type CallPlan } from '../relay/relay-call'
import { passthroughJsonAnswer, resolveCall, routeCall } from '../relay/route-call'
import { translatedPlan } from '../relay/translated-plan'
import { buildUpstreamHeaders } from '../upstream/upstream-headers'
import { type GatewayAnswer } from '../http/gateway-answer'
import type { RouteDefinition } from './route-definition'

/** The call name in a Gemini path; clients may write it `models/<name>`. */
export function geminiCallName(scope: AuthedScope): string {
  return (scope.pathModel ?? '').replace(/^models\//, '')
}

/**
 * `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`. The model
 * comes from the path (`<group_id>/<model>` works there, raw or as `%2F`). To a `gemini` group
 * this is passthrough: the body goes upstream untouched, since Gemini names the model in the URL.
 * To any other group the request, the answer and the stream are translated.
 *
 * Without `alt=sse`, Google streams one JSON array; the gateway answers 400 and says so rather than
 * invent that format:
 * every official SDK asks for SSE.
 */
export async function handleGeminiGenerate(
  runtime: GatewayRuntime,
  scope: AuthedScope,
  stream: boolean,
): Promise<GatewayAnswer> {
  if (stream && scope.url.searchParams.get('alt') !== 'sse') {
    throw new GatewayError(
      'invalid_request',
      'streamGenerateContent needs `alt=sse`: the gateway streams server-sent events only.',
      {
        param: 'alt',
      },
    )
  }
  // The model is in the path: an unknown one is answered before the body is even read.
  const route = await resolveCall(runtime, scope, geminiCallName(scope))
  const json = parseClientJson(await scope.request.text(runtime.maxBodyBytes))
  const body = validateBody(
    normalizeGeminiBody(json.value),
    geminiGenerateContentRequestSchema,
    geminiArrayLimits,
  )
  const routed = routeCall(runtime, scope, route, {
    model: geminiCallName(scope),
    stream,
    text: json.text,
    maxOutputTokens: body.generationConfig?.maxOutputTokens ?? undefined,
    protocol: 'gemini',
    body,
  })
  return relayCall(runtime, scope, routed, (common): CallPlan =>
    common.provider.protocol === 'gemini'
      ? {
          ...common,
          operation: stream ? 'stream-generate-content' : 'generate-content',
          body: geminiPassthroughBody(json, common.route.model.upstreamModel),
          headers: buildUpstreamHeaders(scope.request.headers, runtime.forwardHeaders),
          answerJson: (text, json) =>
            passthroughJsonAnswer(
              text,
              json,
              'usageMetadata',
              (usage) => toTokenUsage(geminiUsageToCanonical(usage)),
              { modelMember: 'modelVersion', callName: common.model },
            ),
          translator: () => geminiPassthroughStream(common.model),
        }
      : translatedPlan(
          runtime,
          scope,
          decodeGeminiRequest(body, common.route.model.upstreamModel, stream),
          clientCodecs.gemini,
          common,
        ),
  )
}

/** Gemini's `:generateContent` and `:streamGenerateContent`. */
export const geminiGenerateRoutes: readonly RouteDefinition[] = [
  {
    name: 'gemini.generate',
    method: 'POST',
    paths: ['/v1beta/models/{model}:generateContent'],
    errors: 'gemini',
    handler: (runtime, scope) => handleGeminiGenerate(runtime, scope, false),
  },
  {
    name: 'gemini.stream',
    method: 'POST',
    paths: ['/v1beta/models/{model}:streamGenerateContent'],
    errors: 'gemini',
    handler: (runtime, scope) => handleGeminiGenerate(runtime, scope, true),
  },
]
