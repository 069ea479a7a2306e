import { createRedisResponseCache } from '../../cache/redis-response-cache'
import type { ResponseCacheStore } from '../../cache/cache-store'
import type { StateConfig } from '../../config/schema'
import type { CircuitStore } from '../../failover/circuit-store'
import type { PostgresLedger } from '../../postgres/ledger'
import { ledgerReseed } from '../../postgres/ledger-reseed'
import { createRedisCircuitStore } from '../../redis/redis-circuit-store'
import { createRedisResponseStore } from '../../redis/redis-response-store'
import { createRedisUsageMeter } from '../../redis/redis-usage-meter'
import type { StoreLogger } from '../../redis/store-health'
import type { ResponseStore } from '../../response-store/response-store'
import type { UsageMeter } from '../../usage/usage-meter'
import { connectRedis } from './redis-connection'
import type { RedisConnection } from './redis-topology'

/** The shared stores `state.redis` makes, over one connection. */
export type RedisState = {
  connection: RedisConnection
  usageMeter: UsageMeter
  responseStore: ResponseStore
  circuitStore: CircuitStore
  responseCache: ResponseCacheStore
}

/**
 * Connects the Redis `state.redis` names (a URL, a Cluster or a Sentinel primary) and builds the
 * usage meter, Responses store, response cache and circuit store over it. On Cluster the meter starts with one
 * script per hash slot (a key, its team and its organisation live in slots of their own).
 */
export async function connectRedisState(
  state: StateConfig & { redis: NonNullable<StateConfig['redis']> },
  options: { logger?: StoreLogger | undefined; connectTimeoutMs?: number | undefined },
  ledger: PostgresLedger | undefined,
): Promise<RedisState> {
  const connection = await connectRedis(state.redis, {
    connectTimeoutMs: options.connectTimeoutMs,
  })
  const { client } = connection
  return {
    connection,
    usageMeter: createRedisUsageMeter({
      client,
      cluster: connection.cluster,
      prefix: state.prefix,
      timeoutMs: state.redisTimeoutMs,
      leaseMs: state.leaseMs,
      onFailure: state.onFailure,
      logger: options.logger,
      reseed: ledger === undefined ? undefined : ledgerReseed(ledger),
    }),
    responseStore: createRedisResponseStore({ client, prefix: state.prefix }),
    responseCache: createRedisResponseCache({ client, prefix: state.prefix }),
    circuitStore: createRedisCircuitStore({
      client,
      prefix: state.prefix,
      timeoutMs: state.redisTimeoutMs,
      logger: options.logger,
    }),
  }
}
