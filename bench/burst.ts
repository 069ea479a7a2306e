/**
 * `npm run bench:burst`: a burst of concurrent streams against the gateway as the CLI serves it,
 * some of whose clients give up early. It reports how far the gateway's event loop lagged, how many
 * requests were shed (503, with `--max-in-flight`), and how many reached the upstream *after* their
 * client had already left: work and tokens nobody will read.
 *
 * The upstream (a 20-frame, one-second OpenAI stream) and the gateway each run in their own
 * process; the clients run here, on raw `node:http` sockets. Arrival and abort times are wall-clock
 * milliseconds of the same machine.
 *
 * Flags: --clients <n> (1000) --abort-share <0..1> (0.4: that share of clients leaves at a random
 * moment in the first --abort-within ms, 1500) --max-in-flight <n> (none) --rounds <n> (1)
 * --src <dir> (../src: measure another checkout, e.g. `--src /path/to/main/src`) --seed <n> (7)
 */
import { fork, type ChildProcess } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { BurstChildMessage } from './burst-servers'
import { burstKey, burstRequestBody } from './burst-payloads'

const { values: flags } = parseArgs({
  options: {
    clients: { type: 'string', default: '1000' },
    'abort-share': { type: 'string', default: '0.4' },
    'abort-within': { type: 'string', default: '1500' },
    'max-in-flight': { type: 'string' },
    rounds: { type: 'string', default: '1' },
    src: { type: 'string', default: fileURLToPath(new URL('../src', import.meta.url)) },
    seed: { type: 'string', default: '7' },
  },
})
const entry = fileURLToPath(new URL('./burst-servers.ts', import.meta.url))

function start(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(entry, args, {
    execArgv: process.execArgv,
    // The gateway's request log goes to a pipe that is drained, as a CLI's would be.
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  })
  child.stdout?.resume()
  return new Promise((done, fail) => {
    child.once('exit', (code) => fail(new Error(`${args[0]} exited with ${code}`)))
    child.on('message', (message: BurstChildMessage) => {
      if (message.type === 'ready') done({ child, url: message.url })
    })
  })
}

function ask<T extends BurstChildMessage['type']>(
  child: ChildProcess,
  type: T,
): Promise<Extract<BurstChildMessage, { type: T }>> {
  return new Promise((done) => {
    const onMessage = (message: BurstChildMessage) => {
      if (message.type !== type) return
      child.off('message', onMessage)
      done(message as Extract<BurstChildMessage, { type: T }>)
    }
    child.on('message', onMessage)
    child.send({ type })
  })
}

/** A seeded generator, so that every run (and main against a branch) aborts the same clients. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = Math.imul(state ^ (state >>> 15), 1 | state)
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

type ClientResult = { status: number | undefined; leftAt: number | undefined; completed: boolean }

/** One streaming client; it leaves at `leaveAfterMs` if set and it is not done by then. */
function client(
  url: string,
  index: number,
  leaveAfterMs: number | undefined,
): Promise<ClientResult> {
  return new Promise((done) => {
    const result: ClientResult = { status: undefined, leftAt: undefined, completed: false }
    const body = burstRequestBody(index)
    const outgoing = httpRequest(`${url}/v1/chat/completions`, {
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${burstKey}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    })
    const timer =
      leaveAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            result.leftAt = Date.now()
            outgoing.destroy()
          }, leaveAfterMs)
    outgoing.on('response', (response) => {
      result.status = response.statusCode
      response.resume()
      response.on('end', () => {
        result.completed = true
        clearTimeout(timer)
      })
    })
    outgoing.on('close', () => done(result))
    outgoing.on('error', () => undefined)
    outgoing.end(body)
  })
}

async function round(gateway: string, upstream: ChildProcess, gatewayChild: ChildProcess) {
  const clients = Number(flags.clients)
  const next = random(Number(flags.seed))
  await ask(gatewayChild, 'lag')
  const startedAt = Date.now()
  const results = await Promise.all(
    Array.from({ length: clients }, (_, index) => {
      const leaves = next() < Number(flags['abort-share'])
      const after = next() * Number(flags['abort-within'])
      return client(gateway, index, leaves ? after : undefined)
    }),
  )
  const elapsedMs = Date.now() - startedAt
  const lag = await ask(gatewayChild, 'lag')
  const { arrivals } = await ask(upstream, 'arrivals')
  const { sends } = await ask(gatewayChild, 'sends')
  const arrivedAt = new Map(arrivals)
  const sentAt = new Map(sends)
  /** Clients that had left (by the wall clock) before the moment `times` holds for them. */
  const afterLeaving = (times: Map<number, number>) =>
    results.filter((result, index) => {
      const at = times.get(index)
      return result.leftAt !== undefined && at !== undefined && at > result.leftAt
    }).length
  return {
    clients,
    elapsedMs,
    completed: results.filter((result) => result.completed && result.status === 200).length,
    shed: results.filter((result) => result.status === 503).length,
    left: results.filter((result) => result.leftAt !== undefined).length,
    upstreamCalls: arrivals.length,
    // Reached the upstream after the client had left: stamped by the upstream on arrival.
    forwardedAfterClientLeft: afterLeaving(arrivedAt),
    // Upstream calls the gateway started (its fetch called) after the client had left by the
    // wall clock, because it had not seen the departure yet; most are cut before they go out.
    callsStartedAfterClientLeft: afterLeaving(sentAt),
    loopLagMaxMs: Math.round(lag.maxMs),
    loopLagP99Ms: Math.round(lag.p99Ms),
    loopLagMeanMs: Number(lag.meanMs.toFixed(1)),
  }
}

async function main(): Promise<void> {
  const rounds = Number(flags.rounds)
  const source = resolve(flags.src)
  console.log(
    `burst: ${flags.clients} streams at once, ${Number(flags['abort-share']) * 100} % leaving within ${flags['abort-within']} ms; gateway from ${source}${flags['max-in-flight'] === undefined ? '' : `, maxInFlight ${flags['max-in-flight']}`}`,
  )
  for (let index = 1; index <= rounds; index += 1) {
    // Fresh processes per round: the arrivals and the lag histogram start empty.
    const upstream = await start(['upstream'])
    const extra = flags['max-in-flight'] === undefined ? [] : [flags['max-in-flight']]
    const gateway = await start(['gateway', upstream.url, source, ...extra])
    console.log(
      JSON.stringify({
        round: index,
        ...(await round(gateway.url, upstream.child, gateway.child)),
      }),
    )
    for (const child of [gateway.child, upstream.child]) {
      child.removeAllListeners('exit')
      child.kill()
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  },
)
