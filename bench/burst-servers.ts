/**
 * The two child processes of `npm run bench:burst`: `upstream` (a slow OpenAI stream server that
 * notes when each request arrives) and `gateway <upstream-url> <src-dir> [maxInFlight]` (the
 * gateway served as the CLI serves it, with its event loop's delay measured). `src-dir` lets the
 * same harness measure another checkout, such as main before a change.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { burstFrames, burstKey, burstModel, clientIndexOf } from './burst-payloads'
import { nodeSource } from './node-source'

/** Messages to the parent. */
export type BurstChildMessage =
  | { type: 'ready'; url: string }
  | { type: 'arrivals'; arrivals: Array<[index: number, at: number]> }
  | { type: 'sends'; sends: Array<[index: number, at: number]> }
  | { type: 'lag'; maxMs: number; p99Ms: number; meanMs: number }

const [role, upstreamUrl, sourceDir, maxInFlight] = process.argv.slice(2)
const send = (message: BurstChildMessage) => process.send?.(message)

/** Each stream sends its frames this far apart: 20 frames, about one second. */
const frameIntervalMs = 50

async function startUpstream(): Promise<string> {
  const arrivals: Array<[number, number]> = []
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      arrivals.push([clientIndexOf(body), Date.now()])
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      let next = 0
      const timer = setInterval(() => {
        if (response.destroyed) return clearInterval(timer)
        response.write(burstFrames[next]!)
        next += 1
        if (next === burstFrames.length) {
          clearInterval(timer)
          response.end()
        }
      }, frameIntervalMs)
      response.once('close', () => clearInterval(timer))
    })
  })
  server.keepAliveTimeout = 65_000
  process.on('message', (message: { type: string }) => {
    if (message.type === 'arrivals') send({ type: 'arrivals', arrivals })
  })
  return listen(server)
}

async function startGateway(): Promise<string> {
  const { createGateway } = (await import(
    `${sourceDir}/gateway.ts`
  )) as typeof import('../src/gateway')
  const { serveGateway } = (await import(
    nodeSource(sourceDir!, 'serve')
  )) as typeof import('../src/node/transport/serve')
  const { createNodeFetch } = (await import(
    nodeSource(sourceDir!, 'node-fetch')
  )) as typeof import('../src/node/transport/node-fetch')
  const { formatRequestLog } = (await import(
    nodeSource(sourceDir!, 'request-log')
  )) as typeof import('../src/node/cli/request-log')
  const gateway = createGateway({
    groups: [
      {
        id: 'burst',
        protocol: 'openai',
        models: [burstModel],
        upstreams: [{ baseUrl: `${upstreamUrl}/v1`, apiKey: 'sk-upstream-burst-key' }],
      },
    ],
    keys: [{ key: burstKey }],
    fetch: stampedFetch(createNodeFetch()),
    // As the CLI does: one log line per request, to a pipe the parent drains.
    onEvent: (event) => console.log(formatRequestLog(event)),
    ...(maxInFlight === undefined ? {} : { maxInFlight: Number(maxInFlight) }),
  } as Parameters<typeof createGateway>[0])
  const served = await serveGateway(gateway, { port: 0, host: '127.0.0.1' })
  process.on('message', (message: { type: string }) => {
    if (message.type === 'sends') send({ type: 'sends', sends })
  })
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  process.on('message', (message: { type: string }) => {
    if (message.type !== 'lag') return
    const ms = (ns: number) => ns / 1e6
    send({
      type: 'lag',
      maxMs: ms(delay.max),
      p99Ms: ms(delay.percentile(99)),
      meanMs: ms(delay.mean),
    })
    delay.reset()
  })
  return served.url
}

/** When the gateway started each upstream call, by client: its own decision, free of upstream lag. */
const sends: Array<[number, number]> = []

function stampedFetch(inner: typeof fetch): typeof fetch {
  return (input, init) => {
    if (typeof init?.body === 'string') sends.push([clientIndexOf(init.body), Date.now()])
    return inner(input, init)
  }
}

function listen(server: ReturnType<typeof createServer>): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    )
  })
}

;(role === 'upstream' ? startUpstream() : startGateway()).then(
  (url) => {
    process.on('disconnect', () => process.exit(0))
    send({ type: 'ready', url })
  },
  (error: unknown) => {
    console.error(`[bench] burst ${String(role)} failed to start:`, error)
    process.exit(1)
  },
)
