/**
 * model-gateway/redis: a usage meter, a Responses store and a circuit store shared by every gateway instance through Redis, over a
 * two-method client you adapt from your driver (node-redis, ioredis, `@upstash/redis`, Bun's
 * `RedisClient`). No driver is imported here; the core `model-gateway` entry imports none either.
 *
 * @module
 */
export { createRedisUsageMeter } from './redis-usage-meter'
export type { RedisUsageMeterOptions, ReseedFunction } from './redis-usage-meter'
export type { StoreFailurePolicy } from './local-fallback'
export type { RedisScriptClient } from './redis-client'
export type { StoreLogger } from './store-health'
export { defineRedisScript, isNoScriptError } from './redis-script'
export type { RedisScript } from './redis-script'
export { usageLayoutVersion } from './usage-keys'
export { createRedisResponseStore } from './redis-response-store'
export { createRedisResponseCache } from '../cache/redis-response-cache'
export type { RedisResponseCacheOptions, RedisEvalClient } from '../cache/redis-response-cache'
export type { RedisResponseStoreOptions } from './redis-response-store'
export { createRedisCircuitStore } from './redis-circuit-store'
export type { RedisCircuitStore, RedisCircuitStoreOptions } from './redis-circuit-store'
