import type { Group, GroupRegistry } from '../routing/group-registry'
import type { UpstreamProvider } from '../upstream/provider'
import type { Selection, UpstreamHealth, UpstreamSelector } from './upstream-selector'

/** Options of `createWeightedSelector`. */
export type WeightedSelectorOptions = {
  /** The groups whose upstreams `health()` lists. */
  registry: GroupRegistry
  /** A number in [0, 1), as `Math.random` returns; injected so that tests can pin the choice. */
  random: () => number
}

/**
 * The plainest selector: a weighted random pick (weight default 1) among the group's upstreams
 * not yet tried for the request, or the one named by `retrySame`. It keeps no health: `finish`
 * does nothing and `health()` lists every upstream as closed.
 */
export function createWeightedSelector(options: WeightedSelectorOptions): UpstreamSelector {
  const { registry, random } = options
  return {
    select(group, context) {
      const upstreams = group.upstreams
      if (context.retrySame !== undefined) {
        const same = upstreams.find((upstream) => upstream.id === context.retrySame)
        if (same !== undefined) return selected(same)
      }
      // The common case, one upstream and a first attempt, allocates nothing but the selection.
      if (context.tried.size === 0) return selected(pickWeighted(upstreams, random))
      const untried = upstreams.filter((upstream) => !context.tried.has(upstream.id))
      if (untried.length === 0) {
        return { unavailable: true, retryAfterMs: undefined, reason: 'exhausted' }
      }
      return selected(pickWeighted(untried, random))
    },
    health() {
      const groups = registry.list()
      return groups instanceof Promise ? groups.then(closedHealth) : closedHealth(groups)
    },
  }
}

function noop(): void {}

function selected(upstream: UpstreamProvider): Selection {
  return { upstream, finish: noop }
}

function closedHealth(groups: readonly Group[]): UpstreamHealth[] {
  return groups.flatMap((group) =>
    group.upstreams.map((upstream) => ({
      groupId: group.id,
      upstreamId: upstream.id,
      circuit: 'closed' as const,
      inFlight: 0,
    })),
  )
}

/** One upstream picked by weight (default 1); the list is never empty. */
export function pickWeighted(
  upstreams: readonly UpstreamProvider[],
  random: () => number,
): UpstreamProvider {
  if (upstreams.length === 1) return upstreams[0]!
  let total = 0
  for (const upstream of upstreams) total += upstream.weight ?? 1
  let point = random() * total
  for (const upstream of upstreams) {
    point -= upstream.weight ?? 1
    if (point < 0) return upstream
  }
  return upstreams[upstreams.length - 1]!
}
