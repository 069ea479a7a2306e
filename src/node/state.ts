import type { KeyStore } from '../auth/key-store'
import { createCompositeKeyStore } from '../auth/composite-key-store'
import { expandEnv, type MissingEnv } from '../config/expand-env'
import { GatewayConfigError, type ConfigIssue } from '../config/parse-config'
import { stateConfigSchema, type GatewayConfig, type StateConfig } from '../config/schema'
import { createGateway, type GatewayHandler } from '../gateway'
import type { PostgresOptions } from '../postgres/client'
import { createPostgresKeyStore, type PostgresKeyStore } from '../postgres/key-store'
import { createPostgresLedger, type PostgresLedger } from '../postgres/ledger'
import { assertMigrated, migrate, type MigrationResult } from '../postgres/migrate'
import { createPgListener } from '../postgres/pg-listener'
import { openPostgresPool } from './postgres-pool'

/** Options of `connectState` and `createGatewayWithState`. */
export type ConnectStateOptions = {
  /**
   * Apply schema migrations at start (default true). With false the schema is only checked, and a
   * database that is behind fails the start with a message to run `model-gateway migrate`.
   */
  migrate?: boolean
}

/** The shared-state parts a config's `state` section connected. */
export type ConnectedState = {
  keyStore?: PostgresKeyStore
  usageLedger?: PostgresLedger
  /** The Postgres client and table names, for the key admin functions. */
  postgres?: PostgresOptions
  /** What `migrate` did at start, when it ran. */
  migration?: MigrationResult
  /** Closes the connections (after the gateway's own `close()`). */
  close(): Promise<void>
}

/**
 * Reads the `state` section of a config: `${NAME}` expanded from `env`, then validated.
 *
 * @throws GatewayConfigError listing every bad field of `state`
 */
export function readStateConfig(
  state: unknown,
  env: Readonly<Record<string, unknown>> = process.env,
): StateConfig | undefined {
  if (state === undefined) return undefined
  const missing: MissingEnv[] = []
  const expanded = expandEnv(state, env, missing, 'state')
  const issues: ConfigIssue[] = missing.map(({ path, name }) => ({
    path,
    message: `environment variable ${name} is not set`,
  }))
  const result = stateConfigSchema.safeParse(expanded)
  if (!result.success) {
    for (const issue of result.error.issues) {
      issues.push({ path: ['state', ...issue.path].join('.'), message: issue.message })
    }
  }
  if (issues.length > 0 || !result.success) throw new GatewayConfigError(issues)
  return result.data
}

/**
 * Connects what a config's `state` names: with `postgres`, a `pg` pool (the optional peer
 * dependency, imported only then), the schema migrated (or checked), a key store that listens for
 * key changes, and the usage ledger.
 */
export async function connectState(
  state: StateConfig | undefined,
  options: ConnectStateOptions = {},
): Promise<ConnectedState> {
  if (state?.postgres === undefined) return { close: async () => undefined }
  const pool = await openPostgresPool(state.postgres)
  const postgres: PostgresOptions = { client: pool, prefix: state.prefix, schema: state.schema }
  try {
    let migration: MigrationResult | undefined
    if (options.migrate === false) await assertMigrated(postgres)
    else migration = await migrate(postgres)
    const keyStore = createPostgresKeyStore({
      ...postgres,
      listener: createPgListener(pool),
      cacheTtlMs: state.keyCache?.ttlMs,
      negativeCacheTtlMs: state.keyCache?.negativeTtlMs,
    })
    await keyStore.ready()
    const usageLedger = createPostgresLedger({ ...postgres, ...state.ledger })
    return {
      keyStore,
      usageLedger,
      postgres,
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
): Promise<GatewayHandler & { state: ConnectedState }> {
  const state = await connectState(
    readStateConfig(config.state, (config.env as Record<string, unknown>) ?? process.env),
    options,
  )
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
    })
  } catch (error) {
    await state.close()
    throw error
  }
  const closeGateway = gateway.close
  return Object.assign(gateway, {
    state,
    async close(closeOptions?: Parameters<GatewayHandler['close']>[0]) {
      await closeGateway(closeOptions)
      await state.close()
    },
  })
}
