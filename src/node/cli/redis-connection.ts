import {
  connectCluster,
  connectSentinel,
  type NodeRedisTopologyModule,
} from './redis-cluster-connection'
import {
  closeGracefully,
  nodeRedisScriptClient,
  settleWithin,
  type NodeRedisClient,
} from './redis-node-client'
import type { RedisConnection, RedisTarget } from './redis-topology'

type NodeRedisModule = NodeRedisTopologyModule & {
  createClient(options: Record<string, unknown>): NodeRedisClient
}

/** Options of `connectRedis`. */
export type ConnectRedisOptions = {
  /** How long to wait for the first connection before going on degraded (default 2000 ms). */
  connectTimeoutMs?: number | undefined
}

/**
 * Connects to the Redis a `state.redis` names — a `redis://` URL, `{ cluster: [seed URLs] }` or
 * `{ sentinel: { nodes, name } }` — with node-redis (the optional peer dependency `redis`,
 * imported only here and only then). Returns the two-method client every `model-gateway/redis`
 * store takes, the topology, a readiness check and `close()`. Waits up to `connectTimeoutMs` for
 * the first connection; past it the connection is returned anyway (`connected: false`) and keeps
 * retrying, so the gateway starts degraded (under the meter's failure policy) rather than not at
 * all. Commands are never queued while disconnected: a reserve run minutes later would hold
 * capacity for a request long answered.
 *
 * @example
 * const redis = await connectRedis({ cluster: ['redis://10.0.0.1:6379', 'redis://10.0.0.2:6379'] })
 * const usageMeter = createRedisUsageMeter({ client: redis.client, cluster: redis.cluster })
 *
 * @throws Error naming the package to install when `redis` is missing
 */
export async function connectRedis(
  target: RedisTarget,
  options: ConnectRedisOptions = {},
): Promise<RedisConnection> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 2000
  let driver: NodeRedisModule
  try {
    driver = (await import('redis')) as unknown as NodeRedisModule
  } catch (error) {
    throw new Error(
      `"state.redis" needs the "redis" package (an optional peer dependency): npm install redis (${(error as Error).message})`,
    )
  }
  const node = {
    disableOfflineQueue: true,
    socket: {
      connectTimeout: connectTimeoutMs,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000),
    },
  }
  if (typeof target !== 'string') {
    return 'cluster' in target
      ? connectCluster(driver, target.cluster, node, connectTimeoutMs)
      : connectSentinel(driver, target.sentinel, node, connectTimeoutMs)
  }
  const client = driver.createClient({ url: target, ...node })
  // The meter logs when Redis stops and starts answering; the driver's own per-retry errors
  // would repeat that every few hundred milliseconds.
  client.on('error', () => undefined)
  const connected = await settleWithin(client.connect(), connectTimeoutMs)
  const address = new URL(target).host
  return {
    client: nodeRedisScriptClient(client),
    cluster: false,
    connected,
    topology: () => ({ kind: 'single', address }),
    ready: async () => {
      await client.eval('return 1', { keys: [], arguments: [] })
    },
    close: () => closeGracefully(client),
  }
}
