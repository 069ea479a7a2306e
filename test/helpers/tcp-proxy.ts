import { createServer, connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

/**
 * A TCP proxy in front of a server (the machine's PostgreSQL or Redis), to break connections on
 * purpose without stopping the server other test runs share:
 * - `cut()`: drops every open connection and refuses new ones (a restart, or a stopped server, as
 *   a driver sees it);
 * - `stall()`: every byte stops moving, both ways, and new connections stall too (a network
 *   partition: calls hang until something times them out);
 * - `restore()`: stalled connections are reset (as TCP gives up after a partition) and new ones
 *   pass again.
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  let mode: 'pass' | 'stall' | 'cut' = 'pass'
  const pairs = new Set<[Socket, Socket]>()
  const stallPair = ([client, upstream]: [Socket, Socket]) => {
    client.unpipe(upstream)
    upstream.unpipe(client)
    client.pause()
    upstream.pause()
  }
  const resetAll = () => {
    for (const [client, upstream] of pairs) {
      client.destroy()
      upstream.destroy()
    }
    pairs.clear()
  }
  const server = createServer((client) => {
    if (mode === 'cut') {
      client.destroy()
      return
    }
    const upstream = connect(target.port, target.host)
    const pair: [Socket, Socket] = [client, upstream]
    pairs.add(pair)
    const close = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', close).on('close', close)
    upstream.on('error', close).on('close', close)
    client.pipe(upstream).pipe(client)
    if (mode === 'stall') stallPair(pair)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    /** Drops every connection and refuses new ones. */
    cut() {
      mode = 'cut'
      resetAll()
    },
    /** Stops every byte, both ways, on open connections and new ones. */
    stall() {
      mode = 'stall'
      for (const pair of pairs) stallPair(pair)
    },
    /** Lets connections through again; stalled ones are reset. */
    restore() {
      mode = 'pass'
      resetAll()
    },
    close: () =>
      new Promise<void>((resolve) => {
        resetAll()
        server.close(() => resolve())
      }),
  }
}
