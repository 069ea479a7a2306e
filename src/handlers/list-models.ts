import type { KeyRecord } from '../auth/key-store'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import { renderAnthropicModelList } from '../protocols/anthropic/models-list'
import { renderOpenAIModelList } from '../protocols/openai/models-list'
import { modelEntryProfile } from '../models/match-profile'
import { keyMayUseGroup } from '../routing/resolve-route'
import { type GatewayAnswer } from '../http/gateway-answer'
import type { ListedModel } from '../pricing/listed-price'
import { routePricing } from '../relay/route-price'
import type { RouteDefinition } from './route-definition'

/**
 * `GET /v1/models`: only the models the calling key may use, as call names. Both the
 * openai and the Anthropic SDK call this path, so a request with an `anthropic-version` header gets
 * Anthropic's shape, which the Anthropic SDK's `models.list` reads. Codex sends `client_version` and gets an empty catalogue of
 * its own beside the list, so that it uses the model metadata it ships with.
 */
export async function handleListModels(
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<GatewayAnswer> {
  const all = await listModelsForKey(runtime, scope.key)
  if (scope.request.headers.has('anthropic-version')) {
    const createdAt = new Date(runtime.createdAt * 1000).toISOString()
    return renderAnthropicModelList(all, scope.url.searchParams, createdAt)
  }
  return renderOpenAIModelList(all, runtime.createdAt, {
    codexCatalog: scope.url.searchParams.has('client_version'),
  })
}

/**
 * The call names a key may use: each plain name once, under the group default routing picks, then,
 * with `groupIdRouting`, every `<group_id>/<model>`.
 */
export async function listModelsForKey(
  runtime: GatewayRuntime,
  key: KeyRecord,
): Promise<ListedModel[]> {
  const models: ListedModel[] = []
  const pinned: ListedModel[] = []
  const seen = new Set<string>()
  for (const group of await runtime.registry.list()) {
    if (!keyMayUseGroup(key, group.id)) continue
    for (const model of group.models) {
      const listed = {
        groupId: group.id,
        protocol: group.protocol,
        profile: modelEntryProfile(model),
        pricing: routePricing(runtime, { group, model }, key),
      }
      if (!seen.has(model.name)) models.push({ id: model.name, ...listed })
      seen.add(model.name)
      if (runtime.groupIdRouting) pinned.push({ id: `${group.id}/${model.name}`, ...listed })
    }
  }
  return [...models, ...pinned]
}

/** `GET /v1/models` (also `/models`, for a base URL without `/v1`), in the shape the headers ask for. */
export const listModelsRoutes: readonly RouteDefinition[] = [
  {
    name: 'models',
    method: 'GET',
    paths: ['/v1/models', '/models'],
    errors: 'header',
    handler: handleListModels,
  },
]
