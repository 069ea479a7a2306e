/**
 * The child process behind each benchmark target: `mock`, `relay <upstream>` or
 * `gateway <upstream> <transport>`. Each target runs in its own process, so its event loop is not
 * shared with the load generator or the upstream. It reports its URL over IPC, answers CPU-usage
 * requests (to price each request in CPU time), and exits on `stop` or when the parent goes away.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createGateway } from '../src/gateway'
import { serveGateway } from '../src/node/serve'
import { createBareRelay } from './bare-relay'
import { createMockUpstream } from './mock-upstream'
import { benchKey, benchModel } from './payloads'
import { createTransport, type TransportName } from './transports'

/** Messages from the parent. */
export type ParentMessage = { type: 'cpu' } | { type: 'stop' }

/** Messages to the parent. */
export type ChildMessage = { type: 'ready'; url: string } | { type: 'cpu'; usage: NodeJS.CpuUsage }

const [role, upstream, transport] = process.argv.slice(2)

async function start(): Promise<{ url: string; close(): Promise<void> }> {
  if (role === 'mock') return listen(createMockUpstream())
  if (role === 'relay') return listen(createBareRelay(new URL(upstream!)))
  if (role === 'gateway') {
    const gateway = createGateway({
      groups: [
        {
          id: 'bench',
          protocol: 'openai',
          models: [benchModel],
          upstreams: [{ baseUrl: `${upstream}/v1`, apiKey: 'sk-upstream-bench-key' }],
        },
      ],
      keys: [{ key: benchKey, groups: ['bench'] }],
      fetch: createTransport(transport as TransportName),
    })
    return serveGateway(gateway, { port: 0, host: '127.0.0.1' })
  }
  throw new Error(`Unknown role ${String(role)}`)
}

function listen(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          }),
      })
    })
  })
}

const send = (message: ChildMessage) => process.send?.(message)

start().then(
  (served) => {
    process.on('message', (message: ParentMessage) => {
      if (message.type === 'cpu') send({ type: 'cpu', usage: process.cpuUsage() })
      if (message.type === 'stop') void served.close().then(() => process.exit(0))
    })
    process.on('disconnect', () => process.exit(0))
    send({ type: 'ready', url: served.url })
  },
  (error: unknown) => {
    console.error(`[bench] ${String(role)} failed to start:`, error)
    process.exit(1)
  },
)
