import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { freePort } from '../helpers/redis'
import { repoRoot, testModules } from '../helpers/spawn-runtime'

/**
 * A docs page's small project, run as a reader runs it: its files written into an empty folder,
 * its dependencies linked (`model-gateway` is this repository's built package, the others come
 * from the test packages, test/clients, or the repository's `node_modules`), started with `node` on a free `PORT`, and called once
 * its start line is printed.
 *
 * @module
 */

/** A started project: its port, what it printed so far, and how to stop it. */
export type RunningProject = {
  port: number
  output(): string
  /**
   * Sends `signal` (default SIGKILL) and resolves with the exit code once it has exited (`null`
   * when a signal ended it); SIGKILL follows if it is still running 10 s later.
   */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Writes `files` into a new temp folder with `dependencies` linked; returns the folder. */
export function writeProject(files: Record<string, string>, dependencies: string[]): string {
  const folder = mkdtempSync(join(tmpdir(), 'mg-docs-project-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text)
  mkdirSync(join(folder, 'node_modules'))
  for (const name of dependencies) {
    const target =
      name === 'model-gateway'
        ? repoRoot
        : [join(testModules, name), join(repoRoot, 'node_modules', name)].find((path) =>
            existsSync(path),
          )
    if (target === undefined)
      throw new Error(`${name} is installed neither in test/clients nor at the root.`)
    symlinkSync(target, join(folder, 'node_modules', name), 'dir')
  }
  return folder
}

/** Removes a folder `writeProject` made. */
export function removeProject(folder: string): void {
  rmSync(folder, { recursive: true, force: true })
}

/**
 * Runs `node <args>` in `folder` with `env` and `PORT` set to a free port, and waits until it prints
 * `model-gateway listening on http://127.0.0.1:<port>`.
 */
export async function startProject(
  folder: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<RunningProject> {
  const port = await freePort()
  const child = spawn(process.execPath, args, {
    cwd: folder,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (data: Buffer) => void (output += data.toString()))
  child.stderr.on('data', (data: Buffer) => void (output += data.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const stop = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    // A process that outlives a polite signal by 10 s is killed, and said so.
    const late = setTimeout(() => {
      output += `\n(still running 10 s after ${signal}: killed)\n`
      child.kill('SIGKILL')
    }, 10_000)
    const code = await exited
    clearTimeout(late)
    return code
  }
  try {
    await expect
      .poll(() => output, { timeout: 30_000, interval: 100 })
      .toContain(`model-gateway listening on http://127.0.0.1:${port}`)
  } catch (error) {
    await stop()
    throw error
  }
  return { port, output: () => output, stop }
}

/**
 * Sends a docs page's curl line (`-H "Authorization: Bearer sk-…"`, `-d '<body>'`) to the
 * project's `/v1/chat/completions`, and returns the answer's status and message text.
 */
export async function sendCurl(
  port: number,
  curl: string,
): Promise<{ status: number; content: string | undefined }> {
  const key = /Bearer (sk-[\w-]+)/.exec(curl)![1]!
  const body = /-d '(.*)'/.exec(curl)![1]!
  const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  })
  const answer = (await response.json()) as { choices?: [{ message: { content: string } }] }
  return { status: response.status, content: answer.choices?.[0].message.content }
}
