import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { repoRoot } from './spawn-runtime'

const cliPath = join(repoRoot, 'src/node/cli/cli.ts')

function spawnCli(args: readonly string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', cliPath, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Runs a CLI command to its end: exit status and output. */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnCli(args, env)
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (data: Buffer) => void (stdout += data.toString()))
  child.stderr!.on('data', (data: Buffer) => void (stderr += data.toString()))
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })))
}

/** Runs a CLI command with `--json` and parses what it printed; throws on a non-zero exit. */
export async function runCliJson<T = any>(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<T> {
  const result = await runCli([...args, '--json'], env)
  if (result.code !== 0) {
    throw new Error(`model-gateway ${args.join(' ')} exited ${result.code}: ${result.stderr}`)
  }
  return JSON.parse(result.stdout) as T
}

/** A gateway served by the CLI. */
export type ServedCli = {
  url: string
  output(): string
  /** Sends a signal and resolves with the exit status once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
  child: ChildProcess
}

/** Starts `model-gateway --config <file>` and resolves once it listens. */
export function serveCli(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ServedCli> {
  const child = spawnCli(args, env)
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  child.stdout!.on('data', (data: Buffer) => void (output += data.toString()))
  child.stderr!.on('data', (data: Buffer) => void (output += data.toString()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the CLI did not start within 30 s:\n${output}`))
    }, 30_000)
    const onData = () => {
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1]
      if (url === undefined) return
      clearTimeout(timer)
      child.stdout!.off('data', onData)
      resolve({
        url,
        output: () => output,
        child,
        stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal)
          return exited
        },
      })
    }
    child.stdout!.on('data', onData)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`the CLI exited with ${code} before listening:\n${output}`))
    })
  })
}

/** Writes a config file into a fresh temporary folder. */
export function writeConfig(config: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'model-gateway-')), 'config.json')
  writeFileSync(path, JSON.stringify(config))
  return path
}
