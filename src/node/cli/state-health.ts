import type { UpstreamHealth } from '../../failover/upstream-selector'
import { describeTopology, type RedisTopology } from './redis-topology'

/** The shared state as `health()` names it: which Redis the stores run on. */
export type StateHealth = {
  redis?: {
    topology: RedisTopology
    /** In words: `single node …`, `cluster with 3 masters (every slot served)`, `Sentinel primary …`. */
    description: string
  }
}

/**
 * What `health()` of a gateway made by `createGatewayWithState` answers: each upstream's state, as
 * every gateway's `health()` does, with `state` naming the Redis topology the shared stores use.
 */
export type GatewayHealthWithState = readonly UpstreamHealth[] & { state?: StateHealth }

/** Adds the state's topology to the upstreams' health (the array itself is unchanged). */
export function withStateHealth(
  upstreams: readonly UpstreamHealth[],
  redisTopology: (() => RedisTopology) | undefined,
): GatewayHealthWithState {
  if (redisTopology === undefined) return upstreams
  const topology = redisTopology()
  const state: StateHealth = { redis: { topology, description: describeTopology(topology) } }
  return Object.assign([...upstreams], { state })
}
