import type { ResponseCacheStore } from './cache-store'

/** The one method of a Redis client the cache uses (`RedisScriptClient` has it). */
export type RedisEvalClient = {
  /** `EVAL script numkeys key… arg…` */
  eval(script: string, keys: string[], args: string[]): Promise<unknown>
}

/** Options of the Redis response cache. */
export type RedisResponseCacheOptions = {
  /** The client the usage meter takes too (`eval` is all this store uses). */
  client: RedisEvalClient
  /** The namespace of the store's keys (default `mg`), shared with the other Redis parts. */
  prefix?: string
}

// Each script names one key: `<prefix>:cache:<sha-256 hex>`. Entries spread over the slots of a
// Cluster (no hash tag), and no script touches two keys.
const getScript = `return redis.call('GET', KEYS[1])`
const setScript = `return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])`

/**
 * A response cache every gateway instance shares through Redis. Redis keeps each entry's TTL
 * (`SET … PX`); the cache bounds each call and reads a failure as a miss, so an outage makes
 * requests go upstream, never fail.
 *
 * Give the cache a Redis of its own, with `maxmemory-policy allkeys-lru`, when the usage meter's
 * Redis runs `noeviction` or `volatile-ttl` (docs/response-cache.md).
 *
 * @example
 * import { createRedisResponseCache } from 'model-gateway/redis'
 * createGateway({ ...config, responseCache: createRedisResponseCache({ client }) })
 */
export function createRedisResponseCache(options: RedisResponseCacheOptions): ResponseCacheStore {
  const prefix = options.prefix ?? 'mg'
  const client = options.client
  const keyOf = (key: string) => `${prefix}:cache:${key}`
  return {
    async get(key) {
      const value = await client.eval(getScript, [keyOf(key)], [])
      return typeof value === 'string' ? value : undefined
    },
    async set(key, value, ttlMs) {
      await client.eval(setScript, [keyOf(key)], [value, String(Math.max(1, Math.round(ttlMs)))])
    },
  }
}
