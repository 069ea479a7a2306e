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
/** True when `promise` fulfils within `ms`; false when it rejects or is late (it goes on). */
export async function settleWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const answered = promise.then(
    () => true,
    () => false,
  )
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)))
  try {
    return await Promise.race([answered, late])
  } finally {
    clearTimeout(timer)
  }
}

/** The stores' two-method client over a node-redis client, Cluster or Sentinel client (the adapter in docs/shared-state.md). */
export function nodeRedisScriptClient(redis: NodeRedisClient): RedisScriptClient {
  return {
    eval: (script, keys, args) => redis.eval(script, { keys, arguments: args }),
    evalsha: (sha, keys, args) => redis.evalSha(sha, { keys, arguments: args }),
  }
}

/** Closes gracefully (pending commands answered) for up to a second, then drops the sockets. */
export async function closeGracefully(redis: NodeRedisClient): Promise<void> {
  const closed = await settleWithin(redis.close(), 1000)
  if (closed) return
  try {
    redis.destroy()
  } catch {
    // Already closed.
  }
}
