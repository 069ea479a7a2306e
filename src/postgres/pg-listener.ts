import type { ListenHandlers, ListenSubscription, PostgresListener } from './client'

/** The part of a `pg` pool client the listener uses. */
export type PgConnection = {
  query(text: string): Promise<unknown>
  on(
    event: 'notification',
    listener: (message: { channel: string; payload?: string }) => void,
  ): unknown
  on(event: 'error', listener: (error: Error) => void): unknown
  on(event: 'end', listener: () => void): unknown
  release(destroy?: boolean | Error): void
}

/** The part of a `pg` `Pool` the listener uses. */
export type PgPoolLike = { connect(): Promise<PgConnection> }

/** Options of `createPgListener`. */
export type PgListenerOptions = {
  /** How often the listening connection is checked with `SELECT 1` (default 30000 ms). */
  heartbeatMs?: number
  /** First reconnection delay, doubled after each failure up to 30 s (default 500 ms). */
  retryMs?: number
}

/**
 * `LISTEN` over a `pg` `Pool`: one pooled connection is held for the subscription. When it breaks
 * (an error, the server closing it, or a heartbeat `SELECT 1` that fails or takes over 10 s) the
 * listener says so, reconnects with backoff, listens again, and says so again, so that the key
 * store can drop what it cached in between.
 *
 * @example
 * const pool = new pg.Pool({ connectionString })
 * const keyStore = createPostgresKeyStore({ client: pool, listener: createPgListener(pool) })
 */
export function createPgListener(
  pool: PgPoolLike,
  options: PgListenerOptions = {},
): PostgresListener {
  const heartbeatMs = options.heartbeatMs ?? 30_000
  const firstRetryMs = options.retryMs ?? 500
  return {
    async listen(channel: string, handlers: ListenHandlers): Promise<ListenSubscription> {
      let closed = false
      let connection: PgConnection | undefined
      let retryMs = firstRetryMs
      let retryTimer: ReturnType<typeof setTimeout> | undefined
      let heartbeat: ReturnType<typeof setInterval> | undefined

      const lose = (lost: PgConnection, error: unknown) => {
        if (connection !== lost) return
        connection = undefined
        clearInterval(heartbeat)
        lost.release(true)
        if (closed) return
        handlers.onDisconnected(error)
        retryTimer = unref(setTimeout(() => void connect(), retryMs))
        retryMs = Math.min(retryMs * 2, 30_000)
      }

      const checkAlive = (open: PgConnection) => {
        let timer: ReturnType<typeof setTimeout> | undefined
        const timeout = new Promise<never>((_, reject) => {
          timer = unref(
            setTimeout(() => reject(new Error('The heartbeat took over 10 s.')), 10_000),
          )
        })
        Promise.race([open.query('SELECT 1'), timeout]).then(
          () => clearTimeout(timer),
          (error: unknown) => {
            clearTimeout(timer)
            lose(open, error)
          },
        )
      }

      const connect = async (): Promise<void> => {
        let opened: PgConnection
        try {
          opened = await pool.connect()
        } catch (error) {
          if (closed) return
          handlers.onDisconnected(error)
          retryTimer = unref(setTimeout(() => void connect(), retryMs))
          retryMs = Math.min(retryMs * 2, 30_000)
          return
        }
        connection = opened
        opened.on('notification', (message) => {
          if (message.channel === channel) handlers.onNotification(message.payload ?? '')
        })
        opened.on('error', (error) => lose(opened, error))
        opened.on('end', () => lose(opened, new Error('The listening connection ended.')))
        try {
          // The channel is a validated identifier (tables.ts); LISTEN takes no parameters.
          await opened.query(`LISTEN "${channel}"`)
        } catch (error) {
          lose(opened, error)
          return
        }
        if (closed || connection !== opened) return
        retryMs = firstRetryMs
        heartbeat = unref(setInterval(() => checkAlive(opened), heartbeatMs))
        handlers.onConnected()
      }

      await connect()
      return {
        async close() {
          closed = true
          clearTimeout(retryTimer)
          clearInterval(heartbeat)
          const open = connection
          connection = undefined
          if (open === undefined) return
          await open.query(`UNLISTEN "${channel}"`).catch(() => undefined)
          open.release()
        },
      }
    },
  }
}

/** Lets Node exit while a timer is pending (other runtimes have no `unref`). */
function unref<T>(timer: T): T {
  ;(timer as { unref?: () => void }).unref?.()
  return timer
}
