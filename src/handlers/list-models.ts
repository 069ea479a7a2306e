import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { renderAnthropicModelList } from '../protocols/anthropic/models-list'
import { renderOpenAIModelList } from '../protocols/openai/models-list'
import { keyMayUseGroup } from '../routing/resolve-route'

/** A model as listed: the call name and the group that serves it. */
export type ListedModel = { id: string; groupId: string }

/**
 * `GET /v1/models` (spec §4): only the models the calling key may use, as call names. Both the
 * openai and the Anthropic SDK call this path, so a request with an `anthropic-version` header gets
 * Anthropic's shape (checklist RT-07). A name served by several groups is listed once, under the
 * group default routing picks; with `groupIdRouting`, every `<group_id>/<model>` is listed too.
 */
export async function handleListModels(
  runtime: GatewayRuntime,
  scope: RequestScope,
): Promise<Response> {
  const key = scope.key!
  const models: ListedModel[] = []
  const pinned: ListedModel[] = []
  const seen = new Set<string>()
  for (const group of await runtime.registry.list()) {
    if (!keyMayUseGroup(key, group.id)) continue
    for (const model of group.models) {
      if (!seen.has(model.name)) models.push({ id: model.name, groupId: group.id })
      seen.add(model.name)
      if (runtime.groupIdRouting)
        pinned.push({ id: `${group.id}/${model.name}`, groupId: group.id })
    }
  }
  const all = [...models, ...pinned]
  if (scope.request.headers.has('anthropic-version')) {
    return renderAnthropicModelList(
      all,
      scope.url.searchParams,
      new Date(runtime.createdAt * 1000).toISOString(),
    )
  }
  return renderOpenAIModelList(all, runtime.createdAt)
}
