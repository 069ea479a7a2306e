import {
  clusterSlots,
  hostAndPort,
  type RedisConnection,
  type RedisTopology,
} from './redis-topology'
import {
  closeGracefully,
  nodeRedisScriptClient,
  settleWithin,
  type NodeRedisClient,
} from './redis-node-client'

/** The slice of node-redis's cluster client model-gateway uses. */
type NodeRedisCluster = NodeRedisClient & {
  masters: { host: string; port: number }[]
  slots: ({ master?: unknown } | undefined)[]
  nodeClient(node: unknown): Promise<{ ping(): Promise<unknown> }>
  sendCommand(firstKey: undefined, readonly: boolean, args: string[]): Promise<unknown>
}

/** The slice of node-redis's Sentinel client model-gateway uses. */
type NodeRedisSentinel = NodeRedisClient & {
  getMasterNode(): { host: string; port: number } | undefined
}

/** node-redis's factories for Cluster and Sentinel (v5 and later). */
export type NodeRedisTopologyModule = {
  createCluster(options: Record<string, unknown>): NodeRedisCluster
  createSentinel(options: Record<string, unknown>): NodeRedisSentinel
}

/** What every node client is opened with: see `nodeClientOptions`. */
type ClientOptions = Record<string, unknown>

/** User, password and TLS of a URL, for the nodes a Cluster or Sentinel client finds itself. */
function credentialsOf(url: string): ClientOptions {
  const parsed = new URL(url)
  return {
    ...(parsed.username === '' ? {} : { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password === '' ? {} : { password: decodeURIComponent(parsed.password) }),
  }
}

/** Whether the URL asks for TLS. */
const tls = (url: string) => url.startsWith('rediss:')

/**
 * Opens a node-redis Cluster client over seed URLs. The driver follows `MOVED` and `ASK`
 * redirections and refreshes the slot map when a node fails or a replica is promoted. Node
 * clients are opened as the single-node one is (no offline queue, bounded reconnects); the
 * credentials and TLS of the first seed apply to the nodes the cluster announces.
 */
export async function connectCluster(
  driver: NodeRedisTopologyModule,
  urls: string[],
  node: ClientOptions,
  connectTimeoutMs: number,
): Promise<RedisConnection> {
  const first = urls[0]!
  const socket = { ...(node.socket as object), ...(tls(first) ? { tls: true } : {}) }
  const cluster = driver.createCluster({
    rootNodes: urls.map((url) => ({ url })),
    defaults: { ...node, ...credentialsOf(first), socket },
  })
  cluster.on('error', () => undefined)
  const connected = await settleWithin(cluster.connect(), connectTimeoutMs)
  const slotsServed = () => cluster.slots.filter((shard) => shard?.master !== undefined).length
  const topology = (): RedisTopology => ({
    kind: 'cluster',
    masters: cluster.masters.length,
    slotsServed: slotsServed(),
  })
  return {
    client: nodeRedisScriptClient(cluster),
    cluster: true,
    connected,
    topology,
    async ready() {
      // The cluster's own view first: after a master fails it says `fail` until a replica is
      // promoted; then every master this client routes to must answer.
      const info = String(await cluster.sendCommand(undefined, true, ['CLUSTER', 'INFO']))
      if (!info.includes('cluster_state:ok')) throw new Error('Redis Cluster state is not ok')
      const served = slotsServed()
      if (served < clusterSlots) throw new Error(`${served} of ${clusterSlots} slots have a master`)
      await Promise.all(
        cluster.masters.map(async (master) => (await cluster.nodeClient(master)).ping()),
      )
    },
    close: () => closeGracefully(cluster),
  }
}

/**
 * Opens a node-redis Sentinel client: it asks the sentinels for the primary named `name`, and
 * follows the primary the sentinels promote after a failover. The sentinel URLs' credentials are
 * used for the sentinels and the data nodes alike.
 */
export async function connectSentinel(
  driver: NodeRedisTopologyModule,
  sentinel: { nodes: string[]; name: string },
  node: ClientOptions,
  connectTimeoutMs: number,
): Promise<RedisConnection> {
  const first = sentinel.nodes[0]!
  const options: ClientOptions = {
    ...node,
    ...credentialsOf(first),
    socket: { ...(node.socket as object), ...(tls(first) ? { tls: true } : {}) },
  }
  const client = driver.createSentinel({
    name: sentinel.name,
    sentinelRootNodes: sentinel.nodes.map(hostAndPort),
    nodeClientOptions: options,
    sentinelClientOptions: options,
  })
  client.on('error', () => undefined)
  const connected = await settleWithin(client.connect(), connectTimeoutMs)
  const topology = (): RedisTopology => {
    const primary = client.getMasterNode()
    return {
      kind: 'sentinel',
      name: sentinel.name,
      primary: primary === undefined ? undefined : `${primary.host}:${primary.port}`,
    }
  }
  return {
    client: nodeRedisScriptClient(client),
    cluster: false,
    connected,
    topology,
    ready: async () => {
      await client.eval('return 1', { keys: [], arguments: [] })
    },
    close: () => closeGracefully(client),
  }
}
