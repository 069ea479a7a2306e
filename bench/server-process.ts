/**
 * The child process behind each benchmark target: `mock`, `relay <upstream>` or
 * `gateway <upstream> <transport> <src-dir>`. Each target runs in its own process, so its event
 * loop is not shared with the load generator or the upstream. It reports its URL over IPC, answers
 * CPU-usage and memory requests (to price each request in CPU time, each open stream in bytes),
 * and exits on `stop` or when the parent goes away.
 *
 * `src-dir` is the gateway's source directory, or a bundle of it (`bundle-targets.ts`, a path ending
 * in `.mjs`), so that the same harness measures another checkout (main before a change): the gateway is served as the CLI serves it, `serveGateway` over
 * `createGateway` with `fetch: createNodeFetch()` (transport `cli`), or with another transport.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { promiseHooks } from 'node:v8'
import { createBareRelay } from './bare-relay'
import type { GatewayBundle } from './bundle-targets'
import { createMockUpstream } from './mock-upstream'
import { nodeSource } from './node-source'
import { benchKey, benchModel, translatedModel } from './payloads'
import type { TransportName } from './transports'

/** Messages from the parent. */
export type ParentMessage =
  { type: 'cpu' } | { type: 'memory' } | { type: 'stop' } | { type: 'promises'; counting: boolean }

/** Messages to the parent. */
export type ChildMessage =
  | { type: 'ready'; url: string }
  | { type: 'cpu'; usage: NodeJS.CpuUsage }
  | { type: 'memory'; rss: number; heapUsed: number }
  | { type: 'promises'; created: number }

const [role, upstream, transport, sourceDir] = process.argv.slice(2)

type Served = { url: string; close(): Promise<void> }

async function startGateway(): Promise<Served> {
  const src = sourceDir ?? new URL('../src', import.meta.url).pathname
  const gateway = src.endsWith('.mjs')
    ? ((await import(src)) as GatewayBundle)
    : await fromSource(src)
  let fetch: typeof globalThis.fetch | undefined
  if (transport === 'cli') {
    fetch = gateway.createNodeFetch()
  } else {
    const { createTransport } = await import('./transports')
    fetch = createTransport(transport as TransportName)
  }
  const served = gateway.createGateway({
    groups: [
      {
        id: 'bench',
        protocol: 'openai',
        models: [benchModel],
        upstreams: [{ baseUrl: `${upstream}/v1`, apiKey: 'sk-upstream-bench-key' }],
      },
      {
        id: 'bench-anthropic',
        protocol: 'anthropic',
        models: [{ name: translatedModel, upstreamModel: 'claude-bench-upstream' }],
        upstreams: [{ baseUrl: upstream!, apiKey: 'sk-ant-upstream-bench-key' }],
      },
    ],
    keys: [{ key: benchKey, groups: ['bench', 'bench-anthropic'] }],
    fetch,
    ...(transport === 'cli' ? { onEvent: cliRequestLog(gateway) } : {}),
  } as Parameters<typeof gateway.createGateway>[0])
  return gateway.serveGateway(served, { port: 0, host: '127.0.0.1' })
}

/** A checkout's `src/` as tsx runs it (`--tsx`): the same exports as a bundle's. */
async function fromSource(src: string): Promise<GatewayBundle> {
  const { createGateway } = (await import(`${src}/gateway.ts`)) as typeof import('../src/gateway')
  const { serveGateway } = (await import(
    nodeSource(src, 'serve')
  )) as typeof import('../src/node/transport/serve')
  const { createNodeFetch } = (await import(
    nodeSource(src, 'node-fetch')
  )) as typeof import('../src/node/transport/node-fetch')
  const { formatRequestLog } = (await import(
    nodeSource(src, 'request-log')
  )) as typeof import('../src/node/cli/request-log')
  const batch = (await import(nodeSource(src, 'line-batch')).catch(() => undefined)) as
    Pick<GatewayBundle, 'createLineBatch'> | undefined
  return {
    createGateway,
    serveGateway,
    createNodeFetch,
    formatRequestLog,
    createLineBatch: batch?.createLineBatch,
  }
}

/**
 * The CLI logs one line per request to stdout (here /dev/null): the same formatter, and the same
 * writer when the checkout has one (`src/node/cli/line-batch.ts`), else `console.log` as the CLI did.
 */
function cliRequestLog(gateway: GatewayBundle): (event: never) => void {
  const { formatRequestLog, createLineBatch } = gateway
  if (createLineBatch === undefined) return (event) => console.log(formatRequestLog(event))
  const lines = createLineBatch((text) => process.stdout.write(text))
  return (event) => lines.write(formatRequestLog(event))
}

/**
 * Counts the promises the process creates while the parent asks (V8's promise hook, off
 * otherwise: it costs CPU, so the loaded rounds run without it).
 */
let promisesCreated = 0
let stopCountingPromises: (() => void) | undefined
function countPromises(counting: boolean): number {
  stopCountingPromises?.()
  stopCountingPromises = undefined
  const created = promisesCreated
  promisesCreated = 0
  if (counting) {
    stopCountingPromises = promiseHooks.onInit(() => (promisesCreated += 1)) as () => void
  }
  return created
}

async function start(): Promise<Served> {
  if (role === 'mock') return listen(createMockUpstream())
  if (role === 'relay') return listen(createBareRelay(new URL(upstream!)))
  if (role === 'gateway') return startGateway()
  throw new Error(`Unknown role ${String(role)}`)
}

function listen(server: Server): Promise<Served> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', 1024, () => {
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

/** Memory after collecting garbage (the parent passes `--expose-gc`), so it counts what is live. */
function liveMemory(): { rss: number; heapUsed: number } {
  const collect = (globalThis as { gc?: () => void }).gc
  collect?.()
  collect?.()
  const usage = process.memoryUsage()
  return { rss: usage.rss, heapUsed: usage.heapUsed }
}

start().then(
  (served) => {
    process.on('message', (message: ParentMessage) => {
      if (message.type === 'cpu') send({ type: 'cpu', usage: process.cpuUsage() })
      if (message.type === 'memory') send({ type: 'memory', ...liveMemory() })
      if (message.type === 'promises') {
        send({ type: 'promises', created: countPromises(message.counting) })
      }
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
