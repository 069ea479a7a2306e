import type { KeyRecord } from '../auth/key-store'
import { GatewayError } from '../errors'
import type { Group, GroupRegistry, ModelEntry } from './group-registry'

/** Where one request goes: the group and the model entry that matched its call name. */
export type Route = { group: Group; model: ModelEntry }

/** True when the key may use the group (a key without a group list may use all). */
export function keyMayUseGroup(key: KeyRecord, groupId: string): boolean {
  return key.groups === undefined || key.groups.includes(groupId)
}

/**
 * Resolves a call name to a group.
 *
 * Default routing takes the first group, in registry order, that the key may use and that serves
 * the name. With `groupIdRouting`, `<group_id>/<model_name>` pins the group, but only when the
 * prefix is a known group id: `meta-llama/Llama-3.1-8B` stays a plain model name.
 *
 * @throws GatewayError `permission` (403) for a pinned group the key may not use, and
 *   `model_not_found` (404) when no group the key may use serves the name.
 */
export async function resolveRoute(
  registry: GroupRegistry,
  key: KeyRecord,
  callName: string,
  groupIdRouting: boolean,
): Promise<Route> {
  const slash = callName.indexOf('/')
  if (groupIdRouting && slash > 0) {
    const pinned = await registry.get(callName.slice(0, slash))
    if (pinned !== undefined) {
      const modelName = callName.slice(slash + 1)
      if (!keyMayUseGroup(key, pinned.id)) {
        throw new GatewayError('permission', `This API key may not use group \`${pinned.id}\`.`)
      }
      const model = pinned.models.find((entry) => entry.name === modelName)
      if (model === undefined) throw modelNotFound(callName)
      return { group: pinned, model }
    }
  }
  for (const group of await registry.servingModel(callName)) {
    if (!keyMayUseGroup(key, group.id)) continue
    const model = group.models.find((entry) => entry.name === callName)
    if (model !== undefined) return { group, model }
  }
  throw modelNotFound(callName)
}

function modelNotFound(callName: string): GatewayError {
  return new GatewayError(
    'model_not_found',
    `The model \`${callName}\` does not exist or this API key may not use it.`,
    { param: 'model' },
  )
}
