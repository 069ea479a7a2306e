import type { PgPoolLike } from '../../postgres/pg-listener'
import type { PostgresClient } from '../../postgres/client'
import { describeError } from '../../postgres/loud-log'

/** A `pg` pool, as model-gateway uses it. */
export type PostgresPool = PostgresClient & PgPoolLike & { end(): Promise<void> }

/**
 * Opens a `pg` pool for a `postgres://` URL. `pg` is an optional peer dependency, imported only
 * here and only when a config names Postgres, so that gateways without it never need it.
 *
 * @throws Error naming the package to install when `pg` is missing
 */
export async function openPostgresPool(url: string): Promise<PostgresPool> {
  let pg: typeof import('pg')
  try {
    const loaded = (await import('pg')) as typeof import('pg') & { default?: typeof import('pg') }
    pg = loaded.default ?? loaded
  } catch (error) {
    throw new Error(
      `"state.postgres" needs the "pg" package (an optional peer dependency): npm install pg (${describeError(error)})`,
    )
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // A database that does not answer fails the request (503) instead of hanging it.
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    application_name: 'model-gateway',
  })
  // An idle connection that breaks emits 'error' on the pool; unhandled, it would end the process.
  pool.on('error', (error) =>
    console.error('[model-gateway] an idle Postgres connection failed:', describeError(error)),
  )
  return pool as unknown as PostgresPool
}
