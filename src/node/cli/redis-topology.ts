import type { RedisScriptClient } from '../../redis/redis-client'
import { redactUrl } from './redact-url'

/** What `state.redis` names: one node's URL, a Redis Cluster's seed nodes, or a Sentinel primary. */
export type RedisTarget =
  string | { cluster: string[] } | { sentinel: { nodes: string[]; name: string } }

/** The Redis the gateway is connected to, as `health()` and the console name it. */
export type RedisTopology =
  | { kind: 'single'; address: string }
  | { kind: 'cluster'; masters: number; slotsServed: number }
  | { kind: 'sentinel'; name: string; primary: string | undefined }

/** A connection to the Redis a `state.redis` names, as the shared stores use it. */
export type RedisConnection = {
  /** The two-method client every shared store takes (routed by first key on Cluster). */
  client: RedisScriptClient
  /** True on Redis Cluster: the usage meter starts with one script per hash slot. */
  cluster: boolean
  /** Whether Redis answered within the connect timeout (the client keeps retrying either way). */
  connected: boolean
  /** The topology as the driver sees it now. */
  topology(): RedisTopology
  /**
   * Resolves when Redis serves: one node answers; on Cluster, every one of the 16384 slots has a
   * master that answers; on Sentinel, the primary answers.
   */
  ready(): Promise<void>
  /** Closes gracefully for up to a second, then drops the sockets. */
  close(): Promise<void>
}

/** The whole of Redis Cluster's key space. */
export const clusterSlots = 16384

/** The topology in words: `single node 127.0.0.1:6379`, `cluster with 3 masters`, `Sentinel primary mymaster at …`. */
export function describeTopology(topology: RedisTopology): string {
  switch (topology.kind) {
    case 'single':
      return `single node ${topology.address}`
    case 'cluster': {
      const slots =
        topology.slotsServed === clusterSlots
          ? 'every slot served'
          : `${topology.slotsServed} of ${clusterSlots} slots served`
      return `cluster with ${topology.masters} master${topology.masters === 1 ? '' : 's'} (${slots})`
    }
    case 'sentinel':
      return `Sentinel primary "${topology.name}" at ${topology.primary ?? 'an address not yet known'}`
  }
}

/** The target for a log line: URLs with their passwords masked. */
export function describeTarget(target: RedisTarget): string {
  if (typeof target === 'string') return redactUrl(target)
  if ('cluster' in target) return `Redis Cluster (${target.cluster.map(redactUrl).join(', ')})`
  return `Redis Sentinel "${target.sentinel.name}" (${target.sentinel.nodes.map(redactUrl).join(', ')})`
}

/** `host` and `port` of a `redis://` URL (port 6379 when it names none), for node lists. */
export function hostAndPort(url: string): { host: string; port: number } {
  const parsed = new URL(url)
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || 6379) }
}
