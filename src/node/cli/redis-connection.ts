import type { RedisScriptClient } from '../../redis/redis-client'

/** The slice of node-redis model-gateway uses, so that the driver stays an optional dependency. */
export type NodeRedisClient = {
  on(event: 'error', listener: (error: unknown) => void): unknown
  connect(): Promise<unknown>
  close(): Promise<unknown>
  destroy(): void
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
}
type NodeRedisModule = { createClient(options: Record<string, unknown>): NodeRedisClient }

/**
 * Opens a node-redis client for a `redis://` URL. `redis` is an optional peer dependency, imported
 * only here and only when a config names Redis. Waits up to `connectTimeoutMs` for the first
 * connection; past it the client is returned anyway (`connected: false`) and keeps reconnecting,
 * so the gateway starts degraded (under the meter's failure policy) rather than not at all.
 *
 * @throws Error naming the package to install when `redis` is missing
 */
export async function connectNodeRedis(
  url: string,
  connectTimeoutMs: number,
): Promise<{ client: NodeRedisClient; connected: boolean }> {
  let driver: NodeRedisModule
  try {
    driver = (await import('redis')) as unknown as NodeRedisModule
  } catch (error) {
    throw new Error(
      `"state.redis" needs the "redis" package (an optional peer dependency): npm install redis (${(error as Error).message})`,
    )
  }
  const client = driver.createClient({
    url,
    // Commands sent while disconnected fail at once instead of queueing: a queued reserve that
    // ran minutes later would hold capacity for a request that was long answered.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: connectTimeoutMs,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000),
    },
  })
  // The meter logs when Redis stops and starts answering; the driver's own per-retry errors
  // would repeat that every few hundred milliseconds.
  client.on('error', () => undefined)
  let timer: ReturnType<typeof setTimeout> | undefined
  const connected = client.connect().then(
    () => true,
    () => false,
  )
  const late = new Promise<boolean>(
    (resolve) => (timer = setTimeout(resolve, connectTimeoutMs, false)),
  )
  const answered = await Promise.race([connected, late])
  clearTimeout(timer)
  return { client, connected: answered }
}

/** Closes gracefully (pending commands answered) for up to a second, then drops the socket. */
export async function closeNodeRedis(redis: NodeRedisClient): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const graceful = redis.close().then(
    () => true,
    () => false,
  )
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, 1000, false)))
  const closed = await Promise.race([graceful, late])
  clearTimeout(timer)
  if (!closed) {
    try {
      redis.destroy()
    } catch {
      // Already closed.
    }
  }
}

/** The meter's two-method client over node-redis (the adapter in docs/shared-state.md). */
export function nodeRedisScriptClient(redis: NodeRedisClient): RedisScriptClient {
  return {
    eval: (script, keys, args) => redis.eval(script, { keys, arguments: args }),
    evalsha: (sha, keys, args) => redis.evalSha(sha, { keys, arguments: args }),
  }
}
