import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root, where the examples run from so `model-gateway` resolves to `dist/`. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/**
 * Where the packages only the tests use are installed (test/clients, scripts/install-test-clients.mjs):
 * the SDKs, msw, playwright-core… A file written inside it resolves them, as the test files do
 * through the test/node_modules link.
 */
export const testModules = join(repoRoot, 'test', 'clients', 'node_modules')

/** A runtime installed in test/runtimes (kept apart so its Node 24 never shadows the root's). */
export type RuntimeName = 'bun' | 'deno' | 'node' | 'workerd'

/**
 * The path of a runtime binary from test/runtimes. Throws, rather than skipping, when it is not
 * installed: the example tests exist to prove each runtime works.
 */
export function runtimeBin(name: RuntimeName): string {
  const bin = join(repoRoot, 'test', 'runtimes', 'node_modules', '.bin', name)
  if (!existsSync(bin)) {
    throw new Error(`${name} is not installed; run \`node scripts/install-test-runtimes.mjs\`.`)
  }
  return bin
}

/** An example server started by {@link spawnRuntime}. */
export type RunningExample = {
  /** The origin the example printed, such as `http://127.0.0.1:43211`. */
  url: string
  /** Everything the process wrote so far, for failure messages. */
  output(): string
  /** Stops the process and anything it started; resolves once it has exited. */
  stop(): Promise<void>
}

/** How to start an example. */
export type SpawnRuntimeOptions = {
  command: string
  args: readonly string[]
  /** Extra environment; `PORT` defaults to `0` so each runtime picks a free port itself. */
  env?: Record<string, string>
  /** How long to wait for the URL line. */
  startupTimeoutMs?: number
}

// Every example prints this line once it listens. The line end matters: output arrives in
// chunks, and a chunk may end in the middle of the port.
const listening = /model-gateway listening on (http:\/\/\S+)\r?\n/

/**
 * Starts an example with a real runtime and resolves with its URL once it prints
 * `model-gateway listening on <url>`. Rejects (after killing it) if it exits or stays silent.
 */
export function spawnRuntime(options: SpawnRuntimeOptions): Promise<RunningExample> {
  const child = spawn(options.command, options.args, {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so stopping it also reaches grandchildren (Miniflare's workerd).
    detached: true,
  })
  let output = ''
  const exited = new Promise<void>((done) => child.once('exit', () => done()))
  const stop = () => stopProcess(child, exited)
  const command = [options.command, ...options.args].join(' ')

  return new Promise((resolveStart, rejectStart) => {
    const fail = (reason: string) => {
      clearTimeout(timer)
      void stop().then(() => rejectStart(new Error(`${command} ${reason}. Output:\n${output}`)))
    }
    const timer = setTimeout(
      () => fail(`printed no URL within ${options.startupTimeoutMs ?? 30_000} ms`),
      options.startupTimeoutMs ?? 30_000,
    )
    const onData = (data: Buffer) => {
      output += data.toString()
      const match = listening.exec(output)
      if (match?.[1] === undefined) return
      clearTimeout(timer)
      child.off('exit', onExit)
      resolveStart({ url: match[1], output: () => output, stop })
    }
    const onExit = (code: number | null, signal: string | null) =>
      fail(`exited (code ${code}, signal ${signal}) before listening`)
    child.stdout.on('data', onData)
    child.stderr.on('data', (data: Buffer) => (output += data.toString()))
    child.once('exit', onExit)
    child.once('error', (error) => fail(`failed to start: ${error.message}`))
  })
}

/** SIGTERM lets the runtime shut down cleanly; SIGKILL of the whole group follows regardless. */
async function stopProcess(child: ChildProcess, exited: Promise<void>): Promise<void> {
  const pid = child.pid
  if (pid === undefined) return
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM')
    const timeout = new Promise<void>((done) => setTimeout(done, 5_000).unref())
    await Promise.race([exited, timeout])
  }
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // The group is already gone.
  }
  await exited
}
