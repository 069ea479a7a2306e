import { spawn, type ChildProcess } from 'node:child_process'
import { McpRpcError, rpcCodes } from '../../mcp/json-rpc'
import {
  createUpstreamChannel,
  type McpTransportFactory,
  type UpstreamChannel,
  type UpstreamTransport,
} from '../../mcp/upstream-channel'
import { UpstreamSessionGone } from '../../mcp/upstream-http'
import { readLines } from './stdout-lines'

/** A `command` server of `mcp.servers[]`. */
type StdioServerConfig = {
  id: string
  command?: string | undefined
  args?: readonly string[] | undefined
  env?: Readonly<Record<string, string>> | undefined
}

/** Options of `createStdioTransports`. */
export type StdioTransportsOptions = {
  /** Where the one line per exit goes (default `console.error`). */
  log?: ((line: string) => void) | undefined
  /** The environment the inherited variables are read from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>> | undefined
}

/**
 * The variables a stdio server inherits from the gateway: enough to find and run a program, none
 * that could hold a secret. Everything else it needs is in its `env`.
 */
const inherited = ['PATH', 'HOME', 'LANG', 'TMPDIR', 'SYSTEMROOT'] as const

const restartMinMs = 250
const restartMaxMs = 30_000
/** A process that lived this long was healthy: its next exit restarts it quickly again. */
const healthyMs = 30_000

/**
 * Starts the `command` servers of `mcp.servers[]` (newline-delimited JSON-RPC on stdin and
 * stdout, MCP's stdio transport). One process per server per gateway instance serves every client
 * session: it is initialized once (with the first session's client info) and each session's
 * `initialize` gets that answer. A process that exits is restarted after a backoff (250 ms,
 * doubling to 30 s) with one log line; sessions of the old process are reopened on the new one.
 * `close()` kills them all (SIGTERM, then SIGKILL after 2 s).
 */
export function createStdioTransports(options: StdioTransportsOptions = {}): McpTransportFactory {
  const log = options.log ?? ((line: string) => console.error(line))
  const env = options.env ?? process.env
  const servers: ReturnType<typeof createStdioServer>[] = []
  return {
    create(server: StdioServerConfig, maxResponseBytes) {
      if (server.command === undefined) return undefined
      const started = createStdioServer(server, maxResponseBytes, env, log)
      servers.push(started)
      return started.transport
    },
    async close() {
      await Promise.all(servers.map((server) => server.close()))
    },
  }
}

type Live = {
  child: ChildProcess
  channel: UpstreamChannel
  generation: number
  result: Record<string, unknown>
}

function createStdioServer(
  server: StdioServerConfig,
  maxResponseBytes: number,
  parentEnv: Readonly<Record<string, string | undefined>>,
  log: (line: string) => void,
) {
  let generation = 0
  let live: Live | undefined
  let ready: Promise<Live> | undefined
  let initParams: unknown
  let crashes = 0
  let closed = false
  let timer: ReturnType<typeof setTimeout> | undefined
  const children = new Set<ChildProcess>()

  function failure(why: string) {
    return new McpRpcError(rpcCodes.upstreamFailed, `MCP server "${server.id}" failed: ${why}`)
  }

  function environment(): Record<string, string> {
    const env: Record<string, string> = {}
    for (const name of inherited) {
      const value = parentEnv[name]
      if (value !== undefined) env[name] = value
    }
    return { ...env, ...server.env }
  }

  /** Records a start in progress; one that fails is forgotten, so the next session tries again. */
  function attempt(starting: Promise<Live>) {
    ready = starting
    starting.catch(() => {
      if (ready === starting) ready = undefined
    })
  }

  async function start(): Promise<Live> {
    if (closed) throw failure('the gateway is closing')
    const child = spawn(server.command!, [...(server.args ?? [])], {
      env: environment(),
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    children.add(child)
    const startedAt = Date.now()
    const channel = createUpstreamChannel(
      (message) =>
        new Promise<void>((resolve, reject) => {
          child.stdin!.write(`${JSON.stringify(message)}\n`, (error) =>
            error ? reject(failure(`its stdin failed (${error.message})`)) : resolve(),
          )
        }),
    )
    let gone = false
    const onGone = (why: string) => {
      if (gone) return
      gone = true
      children.delete(child)
      channel.fail(failure(why))
      if (live?.child === child) live = undefined
      if (closed) return
      crashes = Date.now() - startedAt > healthyMs ? 0 : crashes + 1
      const delay = Math.min(restartMaxMs, restartMinMs * 2 ** Math.max(0, crashes - 1))
      log(`[model-gateway] MCP server "${server.id}" ${why}; restarting in ${delay} ms`)
      attempt(new Promise<void>((resolve) => (timer = setTimeout(resolve, delay))).then(start))
    }
    child.on('error', (error) => onGone(`could not run (${error.message})`))
    child.on('exit', (code, signal) => onGone(`exited (${signal ?? `code ${code}`})`))
    child.stdin!.on('error', () => undefined)
    readLines(child.stdout!, maxResponseBytes, {
      line(message) {
        channel.deliver(message)
      },
      tooLong() {
        channel.fail(
          new McpRpcError(
            rpcCodes.tooLarge,
            `A message of MCP server "${server.id}" exceeds ${maxResponseBytes} bytes (mcp.maxResponseBytes).`,
          ),
        )
        child.kill('SIGKILL')
        // Gone now, not when its exit event comes: a call sent in between must reopen its session
        // on the restarted process instead of meeting this failed channel.
        onGone('sent a message over mcp.maxResponseBytes')
      },
    })
    const request = channel.request(
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: initParams },
      AbortSignal.timeout(30_000),
    )
    let result: Record<string, unknown> | undefined
    for await (const message of request.messages) {
      if (message['id'] !== 0) continue
      const value = message['result']
      if (typeof value === 'object' && value !== null) result = value as Record<string, unknown>
    }
    if (result === undefined) {
      child.kill('SIGKILL')
      throw failure('it refused to initialize')
    }
    await channel.notify({ jsonrpc: '2.0', method: 'notifications/initialized' })
    generation++
    live = { child, channel, generation, result }
    return live
  }

  const transport: UpstreamTransport = {
    async post(message, context) {
      if (message['method'] === 'initialize') {
        initParams ??= message['params']
        if (live === undefined && ready === undefined) attempt(start())
        const current = live ?? (await ready!)
        const answer = { jsonrpc: '2.0', id: message['id'], result: current.result }
        return { sessionId: `p${current.generation}`, messages: one(answer) }
      }
      // The process was initialized once by the gateway itself.
      if (message['method'] === 'notifications/initialized')
        return { sessionId: undefined, messages: none() }
      if (live === undefined || context.sessionId !== `p${live.generation}`) {
        throw new UpstreamSessionGone(server.id)
      }
      if (message['method'] === undefined || message['id'] === undefined) {
        await live.channel.notify(message)
        return { sessionId: context.sessionId, messages: none() }
      }
      const request = live.channel.request(message, context.signal)
      return { sessionId: context.sessionId, messages: request.messages }
    },
  }

  return {
    transport,
    async close() {
      closed = true
      clearTimeout(timer)
      await Promise.all([...children].map(stop))
    },
  }
}

/** Ends a process: SIGTERM, SIGKILL if it is still there 2 s later. */
function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const kill = setTimeout(() => child.kill('SIGKILL'), 2000)
    child.once('exit', () => {
      clearTimeout(kill)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

async function* one(message: Record<string, unknown>): AsyncIterable<Record<string, unknown>> {
  yield message
}

async function* none(): AsyncIterable<Record<string, unknown>> {}
