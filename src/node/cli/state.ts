import type { KeyStore } from '../../auth/key-store'
import { createCompositeKeyStore } from '../../auth/composite-key-store'
import type { GatewayConfig, StateConfig } from '../../config/schema'
import { readStateConfig } from './read-state-config'
import { createGateway, type GatewayHandler } from '../../gateway'
import type { PostgresOptions } from '../../postgres/client'
import { createPostgresKeyStore, type PostgresKeyStore } from '../../postgres/key-store'
import { createPostgresTeamStore } from '../../postgres/team-store'
import type { TeamStore } from '../../auth/team'
import { createPostgresLedger, type PostgresLedger } from '../../postgres/ledger'
import { assertMigrated, migrate, type MigrationResult } from '../../postgres/migrate'
import { createPgListener } from '../../postgres/pg-listener'
import { createRedisMcpSessionStore } from '../../mcp/redis/redis-session-store'
import { createStdioTransports } from '../mcp/stdio-server'
import type { CircuitStore } from '../../failover/circuit-store'
import { ledgerReseed } from '../../postgres/ledger-reseed'
import type { ResponseCacheStore } from '../../cache/cache-store'
import type { ResponseStore } from '../../response-store/response-store'
import type { StoreLogger } from '../../redis/store-health'
import type { ReseedFunction } from '../../usage/budget-seeds'
import { createMemoryUsageMeter } from '../../usage/memory-usage-meter'
import type { UsageMeter } from '../../usage/usage-meter'
import { openPostgresPool, type PostgresPool } from './postgres-pool'
import { describeError } from '../../postgres/loud-log'
import { redactUrl } from './redact-url'
import { connectRedisState, type RedisState } from './state-redis'
import type { RedisTopology } from './redis-topology'
import { withStateHealth, type GatewayHealthWithState } from './state-health'
import type { RedisScriptClient } from '../../redis/redis-client'

export { readStateConfig }

/** Options of `connectState` and `createGatewayWithState`. */
export type ConnectStateOptions = {
  /**
   * Apply schema migrations at start (default true). With false the schema is only checked, and a
   * database that is behind fails the start with a message to run `model-gateway migrate`.
   */
  migrate?: boolean
  /** Where the shared meter's loud lines about Redis going away and coming back go (`console`). */
  logger?: StoreLogger
  /** How long to wait for Redis at start before serving degraded (default 2000 ms). */
  redisConnectTimeoutMs?: number
}

/** The shared-state parts a config's `state` section connected. */
export type ConnectedState = {
  /**
   * With `redis`: the usage meter every instance shares. With `postgres` alone: this process's
   * memory meter, whose budgets are seeded from the ledger on each key's first request.
   */
  usageMeter?: UsageMeter
  /** With `redis`: the Responses store every instance shares. */
  responseStore?: ResponseStore
  /** With `redis`: the response cache every instance shares. */
  responseCache?: ResponseCacheStore
  /** The Redis client of `state.redis`, for the parts built with the gateway (MCP sessions). */
  redisClient?: RedisScriptClient
  /** The namespace of `state.prefix`. */
  prefix?: string | undefined
  /** With `redis`: where every instance shares its open circuits. */
  circuitStore?: CircuitStore
  keyStore?: PostgresKeyStore
  /** The teams table's teams (`model-gateway teams create`), with `state.postgres`. */
  teamStore?: TeamStore
  usageLedger?: PostgresLedger
  /** The Postgres client and table names, for the key admin functions. */
  postgres?: PostgresOptions
  /** What `migrate` did at start, when it ran. */
  migration?: MigrationResult
  /** With `postgres`: the database's schema version once started. */
  schemaVersion?: number
  /** With `redis`: whether Redis answered within the connect timeout (it keeps being retried). */
  redisConnected?: boolean
  /** With `redis`: the topology as the driver sees it now (single node, Cluster, Sentinel primary). */
  redisTopology?: () => RedisTopology
  /** What a readiness probe asks (`probes.readiness`): each store's round trip, by name. */
  checks?: Record<string, () => Promise<unknown>>
  /** Closes the connections (after the gateway's own `close()`). */
  close(): Promise<void>
}

/**
 * Connects what a config's `state` names:
 * - with `postgres`, a `pg` pool (the optional peer dependency, imported only then), the schema
 *   migrated (or checked), a key store that listens for key changes, and the usage ledger;
 * - with `redis`, a node-redis client (the optional peer dependency `redis`, imported only then)
 *   and the shared usage meter and Responses store over it. With both, budgets Redis loses (a
 *   restart, a flush) are re-seeded from the ledger, after this instance's queued rows are written;
 * - with `postgres` alone, a memory meter whose budgets are seeded from the ledger, so that a
 *   restart does not give a key back the budget it spent.
 */
export async function connectState(
  state: StateConfig | undefined,
  options: ConnectStateOptions = {},
): Promise<ConnectedState> {
  const postgres = await connectPostgres(state, options)
  const ledger = postgres.usageLedger
  if (state?.redis === undefined) {
    if (ledger === undefined) return postgres
    // Without Redis the meter is this process's own: its budgets start from the ledger, so a
    // restart does not give a key back what it spent.
    return {
      ...postgres,
      usageMeter: createMemoryUsageMeter({
        leaseMs: state?.leaseMs,
        reseed: loudly(ledgerReseed(ledger), options.logger ?? console),
      }),
    }
  }
  let redis: RedisState
  try {
    redis = await connectRedisState(
      { ...state, redis: state.redis },
      { logger: options.logger, connectTimeoutMs: options.redisConnectTimeoutMs },
      ledger,
    )
  } catch (error) {
    await postgres.close()
    throw error
  }
  const { connection, ...stores } = redis
  return {
    ...postgres,
    ...stores,
    redisConnected: connection.connected,
    redisTopology: connection.topology,
    checks: { ...postgres.checks, redis: connection.ready },
    redisClient: connection.client,
    prefix: state.prefix,
    async close() {
      await postgres.close()
      await connection.close()
    },
  }
}

/** A `reseed` whose failures are logged (at most one line per 10 s): budgets then answer 503. */
function loudly(reseed: ReseedFunction, logger: StoreLogger): ReseedFunction {
  let lastLog = -Infinity
  return async (keyId, period) => {
    try {
      return await reseed(keyId, period)
    } catch (error) {
      if (Date.now() - lastLog >= 10_000) {
        lastLog = Date.now()
        logger.error(
          `[model-gateway] Cannot read budgets from the usage ledger (${error instanceof Error ? error.message : String(error)}). Keys with token or money budgets are refused (503) until it answers.`,
        )
      }
      throw error
    }
  }
}

async function connectPostgres(
  state: StateConfig | undefined,
  options: ConnectStateOptions,
): Promise<ConnectedState> {
  if (state?.postgres === undefined) return { close: async () => undefined }
  const pool = await openPostgresPool(state.postgres)
  const postgres: PostgresOptions = { client: pool, prefix: state.prefix, schema: state.schema }
  try {
    await answers(pool, state.postgres)
    let migration: MigrationResult | undefined
    let schemaVersion: number
    if (options.migrate === false) schemaVersion = await assertMigrated(postgres)
    else {
      migration = await migrate(postgres)
      schemaVersion = migration.version
    }
    const keyStore = createPostgresKeyStore({
      ...postgres,
      listener: createPgListener(pool),
      cacheTtlMs: state.keyCache?.ttlMs,
      negativeCacheTtlMs: state.keyCache?.negativeTtlMs,
    })
    await keyStore.ready()
    const usageLedger = createPostgresLedger({ ...postgres, ...state.ledger })
    // The teams table's teams, for database keys that name one (`keys create --team`).
    const teamStore = createPostgresTeamStore(postgres)
    return {
      keyStore,
      teamStore,
      usageLedger,
      postgres,
      checks: { postgres: () => pool.query('SELECT 1') },
      schemaVersion,
      ...(migration === undefined ? {} : { migration }),
      async close() {
        // The gateway closed the key store and drained the ledger; these are no-ops if so.
        await usageLedger.close()
        await keyStore.close()
        await pool.end()
      },
    }
  } catch (error) {
    await pool.end().catch(() => undefined)
    throw error
  }
}

/** Fails the start with the database's address (password masked) when it does not answer. */
async function answers(pool: PostgresPool, url: string): Promise<void> {
  try {
    await pool.query('SELECT 1')
  } catch (error) {
    throw new Error(`PostgreSQL at ${redactUrl(url)} does not answer: ${describeError(error)}`)
  }
}

/**
 * `createGateway` for a config with a `state` section, on Node: connects the stores its URLs name,
 * then builds the gateway over them. Keys in the config keep working beside keys in the database
 * (the config's are asked first). The handler's `close()` closes the gateway (draining the usage
 * ledger), then the connections. This is what the CLI runs.
 *
 * @example
 * const gateway = await createGatewayWithState({ ...config, state: { postgres: process.env.DATABASE_URL } })
 * const served = await serveGateway(gateway, { port: 8787 })
 * process.once('SIGTERM', () => void served.close())
 */
export async function createGatewayWithState(
  config: GatewayConfig,
  options: ConnectStateOptions = {},
): Promise<
  // First in the intersection, so that `health()` types as the one with `state`.
  { state: ConnectedState; health(): Promise<GatewayHealthWithState> } & GatewayHandler
> {
  const state = await connectState(
    readStateConfig(config.state, (config.env as Record<string, unknown>) ?? process.env),
    options,
  )
  // Stdio servers (`command`) are processes of this instance: started here, killed on close.
  const stdio =
    config.mcpTransports === undefined &&
    config.mcp?.servers?.some((server) => server.command !== undefined)
      ? createStdioTransports()
      : undefined
  let gateway: GatewayHandler
  try {
    const keyStores = [config.keyStore, state.keyStore].filter(
      (store): store is KeyStore => store !== undefined,
    )
    gateway = createGateway({
      ...config,
      ...(keyStores.length === 0
        ? {}
        : {
            keyStore: keyStores.length === 1 ? keyStores[0] : createCompositeKeyStore(keyStores),
          }),
      ...(state.usageLedger === undefined ? {} : { usageLedger: state.usageLedger }),
      // The config's teams[] are asked first; a team store passed in code wins over the table's.
      ...(state.teamStore === undefined || config.teamStore !== undefined
        ? {}
        : { teamStore: state.teamStore }),
      // A meter passed in code wins over the one `state.redis` names.
      ...(state.usageMeter === undefined || config.usageMeter !== undefined
        ? {}
        : { usageMeter: state.usageMeter }),
      ...(state.responseStore === undefined || config.responseStore !== undefined
        ? {}
        : { responseStore: state.responseStore }),
      ...(state.responseCache === undefined || config.responseCache !== undefined
        ? {}
        : { responseCache: state.responseCache }),
      ...(state.circuitStore === undefined || config.circuitStore !== undefined
        ? {}
        : { circuitStore: state.circuitStore }),
      ...(stdio === undefined ? {} : { mcpTransports: stdio }),
      // MCP sessions go where the other shared state is, so any instance serves any session.
      ...(state.redisClient === undefined ||
      config.mcp === undefined ||
      config.mcpSessionStore !== undefined
        ? {}
        : {
            mcpSessionStore: createRedisMcpSessionStore({
              client: state.redisClient,
              prefix: state.prefix,
              ttlSeconds: config.mcp.sessionTtlSeconds ?? 3600,
            }),
          }),
    })
  } catch (error) {
    await stdio?.close()
    await state.close()
    throw error
  }
  const closeGateway = gateway.close
  const upstreamHealth = gateway.health
  return Object.assign(gateway, {
    state,
    health: async () => withStateHealth(await upstreamHealth(), state.redisTopology),
    async close(closeOptions?: Parameters<GatewayHandler['close']>[0]) {
      await closeGateway(closeOptions)
      await stdio?.close()
      await state.close()
    },
  })
}
