/**
 * The structural Postgres client model-gateway needs: one method, which `pg`'s `Pool` and `Client`
 * have as they are. Other drivers fit in a line (docs/shared-state.md, "Postgres drivers"); the package never
 * imports a driver, so each user brings the one their runtime runs.
 *
 * Every statement model-gateway sends is a single statement (DDL runs inside one `DO` block), so
 * a pool may hand each call to a different connection. Values are passed as text, numbers or
 * booleans and cast in SQL — JSON as `$n::text::jsonb`, since a driver that sees a `jsonb`
 * parameter (postgres.js) would encode a string a second time — and read back as text where
 * drivers disagree (int8, timestamps), so any driver's type parsing gives the same answers.
 *
 * @example
 * import pg from 'pg'
 * const client: PostgresClient = new pg.Pool({ connectionString: process.env.DATABASE_URL })
 */
export interface PostgresClient {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>
}

/** What a `PostgresListener` calls back. */
export type ListenHandlers = {
  /** A notification on the channel, with its payload. */
  onNotification(payload: string): void
  /**
   * The listening connection is (again) established. Notifications sent while it was down are
   * lost, so listeners drop whatever they cached.
   */
  onConnected(): void
  /** The listening connection broke; until `onConnected`, notifications are not received. */
  onDisconnected(error: unknown): void
}

/** A subscription to a channel, ended by `close`. */
export type ListenSubscription = { close(): Promise<void> }

/**
 * `LISTEN` support: the key store subscribes to key changes with it. `createPgListener(pool)` is
 * the one for `pg`; postgres.js and PGlite have a `listen` of their own (docs/shared-state.md).
 */
export interface PostgresListener {
  listen(channel: string, handlers: ListenHandlers): Promise<ListenSubscription>
}

/** Where model-gateway's tables live: a client, and optionally a schema and a table prefix. */
export type PostgresOptions = {
  client: PostgresClient
  /**
   * The schema of the tables; created by `migrate` if missing. Default: none, so tables go where
   * the connection's `search_path` says (usually `public`).
   */
  schema?: string | undefined
  /**
   * Prefix of every table and of the notification channel (default `mg`, as `state.prefix`), so
   * that several gateways can share one database.
   */
  prefix?: string | undefined
}
