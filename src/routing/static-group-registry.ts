import type { Group, GroupRegistry } from './group-registry'

/**
 * A group registry over a fixed list, indexed once so that a lookup is two map reads.
 *
 * @param groups the groups in routing order; ids must be unique
 */
export function createStaticGroupRegistry(groups: readonly Group[]): GroupRegistry {
  const byId = new Map(groups.map((group) => [group.id, group]))
  const byModel = new Map<string, Group[]>()
  for (const group of groups) {
    for (const model of group.models) {
      const serving = byModel.get(model.name) ?? []
      if (!serving.includes(group)) serving.push(group)
      byModel.set(model.name, serving)
    }
  }
  return {
    list: () => groups,
    get: (id) => byId.get(id),
    servingModel: (model) => byModel.get(model) ?? [],
  }
}
