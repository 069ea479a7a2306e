import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { ChildMessage, ParentMessage } from './server-process'

/** A benchmark target running in its own process. */
export type Target = {
  url: string
  /** The child's process id (valgrind's, which is the guest Node's, under a wrapper). */
  pid: number
  /** The child's total CPU time so far, user plus system, in microseconds. */
  cpuMicros(): Promise<number>
  /**
   * Starts (`true`) or stops counting the promises the child creates; resolves with the count
   * since the last call.
   */
  countPromises(counting: boolean): Promise<number>
  /** The child's resident memory after a full garbage collection, in bytes. */
  liveRss(): Promise<number>
  stop(): Promise<void>
}

const entry = fileURLToPath(new URL('./server-process.ts', import.meta.url))
const startTimeoutMs = 20_000
const stopTimeoutMs = 3_000

/** How a target is started when it runs under a wrapper (valgrind) rather than Node itself. */
export type TargetLaunch = {
  /** The wrapper's argv before Node's (`['valgrind', '--tool=callgrind', …]`). */
  wrapper?: readonly string[]
  /** How long the child may take to listen, in ms (20 s). */
  startTimeoutMs?: number
  /**
   * A bundle of `server-process.ts` (`bundleServerProcess`), run by plain Node: without tsx's
   * loader in the parent's `execArgv`.
   */
  entry?: string
}

/**
 * Forks `server-process.ts` with the parent's `execArgv` (tsx's loader, so TypeScript runs as it
 * does here) — or its bundle (`launch.entry`) with none — plus `extraExecArgv` and `--expose-gc`,
 * on `execPath` (another Node binary) when given, under `launch.wrapper` when given, and resolves
 * once the child listens.
 */
export function startTarget(
  args: readonly string[],
  extraExecArgv: string[] = [],
  execPath?: string,
  launch: TargetLaunch = {},
): Promise<Target> {
  const nodeArgv = [
    ...(launch.entry === undefined ? process.execArgv : []),
    '--expose-gc',
    ...extraExecArgv,
  ]
  const wrapper = launch.wrapper
  // fork() runs `execPath ...execArgv entry ...args` with the IPC channel's fd in the environment,
  // which a wrapper such as valgrind hands on to the Node it starts.
  const child = fork(launch.entry ?? entry, [...args], {
    execArgv:
      wrapper === undefined
        ? nodeArgv
        : [...wrapper.slice(1), execPath ?? process.execPath, ...nodeArgv],
    // stdout to /dev/null: the gateway logs a line per request, as the CLI does.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    ...(wrapper === undefined
      ? execPath === undefined
        ? {}
        : { execPath }
      : { execPath: wrapper[0] }),
  })
  const timeoutMs = launch.startTimeoutMs ?? startTimeoutMs
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${args[0]} did not start within ${timeoutMs} ms`))
    }, timeoutMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${args[0]} exited with code ${code} before listening`))
    })
    child.once('message', (message: ChildMessage) => {
      if (message.type !== 'ready') return
      clearTimeout(timer)
      child.removeAllListeners('exit')
      resolve({
        url: message.url,
        pid: child.pid!,
        cpuMicros: () => askCpu(child),
        liveRss: () => askMemory(child),
        countPromises: (counting) => askPromises(child, counting),
        stop: () => stop(child),
      })
    })
  })
}

function askCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: ChildMessage) => {
      if (message.type !== 'cpu') return
      child.off('message', onMessage)
      resolve(message.usage.user + message.usage.system)
    }
    child.on('message', onMessage)
    child.send({ type: 'cpu' } satisfies ParentMessage)
  })
}

function askPromises(child: ChildProcess, counting: boolean): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: ChildMessage) => {
      if (message.type !== 'promises') return
      child.off('message', onMessage)
      resolve(message.created)
    }
    child.on('message', onMessage)
    child.send({ type: 'promises', counting } satisfies ParentMessage)
  })
}

function askMemory(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: ChildMessage) => {
      if (message.type !== 'memory') return
      child.off('message', onMessage)
      resolve(message.rss)
    }
    child.on('message', onMessage)
    child.send({ type: 'memory' } satisfies ParentMessage)
  })
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.send({ type: 'stop' } satisfies ParentMessage)
  })
}
