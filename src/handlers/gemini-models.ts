import { GatewayError } from '../errors'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { geminiModel, renderGeminiModelList } from '../protocols/gemini/models-list'
import { listModelsForKey } from './list-models'
import { jsonAnswer, type GatewayAnswer } from '../http/gateway-answer'
import type { RouteDefinition } from './route-definition'

/** `GET /v1beta/models`: the key's models in Gemini's shape, paged. */
export async function handleGeminiListModels(
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<GatewayAnswer> {
  return renderGeminiModelList(await listModelsForKey(runtime, scope.key), scope.url.searchParams)
}

/** `GET /v1beta/models/{model}`: one of the key's models, or 404 `NOT_FOUND`. */
export async function handleGeminiGetModel(
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<GatewayAnswer> {
  const name = (scope.pathModel ?? '').replace(/^models\//, '')
  const found = (await listModelsForKey(runtime, scope.key)).find((model) => model.id === name)
  if (found === undefined) {
    throw new GatewayError(
      'model_not_found',
      `The model \`${name}\` does not exist or this API key may not use it.`,
    )
  }
  return jsonAnswer(geminiModel(found))
}

/** Gemini's model list and model lookup. */
export const geminiModelsRoutes: readonly RouteDefinition[] = [
  {
    name: 'gemini.models',
    method: 'GET',
    paths: ['/v1beta/models'],
    errors: 'gemini',
    handler: handleGeminiListModels,
  },
  {
    name: 'gemini.model',
    method: 'GET',
    paths: ['/v1beta/models/{model}'],
    errors: 'gemini',
    handler: handleGeminiGetModel,
  },
]
