/**
 * The Redis client model-gateway needs: two methods, shaped like `@upstash/redis`'s, so that any
 * driver fits in a few lines (adapters for node-redis, ioredis and Bun's `RedisClient` are in
 * docs/shared-state.md). Replies are what the driver returns for Lua replies: integers as numbers
 * (or numeric strings), bulk strings as strings, arrays as arrays.
 *
 * @example
 * // node-redis (`redis` on npm), the driver the tests run against
 * import { createClient } from 'redis'
 * const redis = await createClient({ url, disableOfflineQueue: true }).connect()
 * const client: RedisScriptClient = {
 *   eval: (script, keys, args) => redis.eval(script, { keys, arguments: args }),
 *   evalsha: (sha, keys, args) => redis.evalSha(sha, { keys, arguments: args }),
 * }
 */
export interface RedisScriptClient {
  /** `EVAL script numkeys key… arg…` */
  eval(script: string, keys: string[], args: string[]): Promise<unknown>
  /** `EVALSHA sha1 numkeys key… arg…`; rejects with an error whose message starts `NOSCRIPT` when the server lacks the script. */
  evalsha(sha1: string, keys: string[], args: string[]): Promise<unknown>
}
