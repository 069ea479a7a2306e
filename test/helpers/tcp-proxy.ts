import { createServer, connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

/**
 * A TCP proxy in front of the machine's PostgreSQL, to break connections on purpose: `cut()` drops
 * every open connection and refuses new ones (what a database restart or a network partition looks
 * like to a driver); `restore()` lets them through again.
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>()
  let open = true
  const server = createServer((client) => {
    if (!open) {
      client.destroy()
      return
    }
    const upstream = connect(target.port, target.host)
    sockets.add(client)
    sockets.add(upstream)
    const close = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('error', close).on('close', close)
    upstream.on('error', close).on('close', close)
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    /** Drops every connection and refuses new ones. */
    cut() {
      open = false
      for (const socket of sockets) socket.destroy()
      sockets.clear()
    },
    restore() {
      open = true
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
