import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { parseCliArgs } from '../../src/node/cli/cli-args'

const repoRoot = new URL('../..', import.meta.url).pathname
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})

/** Runs the CLI from source with tsx, collecting its output until it exits or prints `until`. */
function runCli(
  args: string[],
  until?: RegExp,
): Promise<{ code: number | null; stdout: string; stderr: string; output: () => string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'src/node/cli/cli.ts'), ...args],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  children.push(child)
  let stdout = ''
  let stderr = ''
  const output = () => stdout
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ code: null, stdout, stderr, output }), 15_000)
    child.stdout!.on('data', (data: Buffer) => {
      stdout += data.toString()
      if (until?.test(stdout)) {
        clearTimeout(timer)
        resolve({ code: null, stdout, stderr, output })
      }
    })
    child.stderr!.on('data', (data: Buffer) => void (stderr += data.toString()))
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, output })
    })
  })
}

function writeConfig(config: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'model-gateway-')), 'config.json')
  writeFileSync(path, JSON.stringify(config))
  return path
}

describe('model-gateway CLI', () => {
  it('exits non-zero and prints every validation error for a bad config', async () => {
    const path = writeConfig({
      groups: [{ id: 'x', protocol: 'nope', models: [], upstreams: [] }],
      keys: [{ key: 'short' }],
    })
    const result = await runCli(['--config', path, '--port', '0'])
    expect(result.code).toBe(1)
    for (const field of [
      'groups[0].protocol',
      'groups[0].models',
      'groups[0].upstreams',
      'keys[0].key',
    ]) {
      expect(result.stderr).toContain(field)
    }
  })

  it('exits 2 on a bad command line', async () => {
    const result = await runCli(['--port', '99999'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/Usage: model-gateway/)
  })

  it('serves the demo config, prints its address and a curl line that works, and logs masked keys only', async () => {
    const result = await runCli(
      ['--config', join(repoRoot, 'examples/gateway.config.json'), '--port', '0', '--print-demo'],
      /curl .*\/v1\/responses.*\n/,
    )
    const url = /listening on (http:\/\/\S+)/.exec(result.stdout)?.[1]
    const key = /Demo key: (\S+)/.exec(result.stdout)?.[1]
    const curl =
      /curl (\S+) -H "Authorization: Bearer (\S+)" -H "Content-Type: application\/json" -d '(.+)'/.exec(
        result.stdout,
      )
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(curl).not.toBeNull()
    const response = await fetch(curl![1]!, {
      method: 'POST',
      headers: { authorization: `Bearer ${curl![2]}`, 'content-type': 'application/json' },
      body: curl![3]!,
    })
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> }
    expect(body.choices[0]?.message.content).toBe('You said: Hello, gateway!')
    const responsesCurl =
      /curl (\S+\/v1\/responses) -H "Authorization: Bearer (\S+)" -H "Content-Type: application\/json" -d '(.+)'/.exec(
        result.stdout,
      )
    const answer = await fetch(responsesCurl![1]!, {
      method: 'POST',
      headers: { authorization: `Bearer ${responsesCurl![2]}`, 'content-type': 'application/json' },
      body: responsesCurl![3]!,
    })
    const responseBody = (await answer.json()) as {
      output: Array<{ content: Array<{ text: string }> }>
    }
    expect(responseBody.output[0]?.content[0]?.text).toBe('You said: Hello, Responses!')
    await vi.waitFor(() => expect(result.output()).toContain('POST /v1/chat/completions'))
    const logged = result.output().slice(result.stdout.length)
    expect(logged).toContain(`key=sk-…${key!.slice(-4)}`)
    expect(logged).not.toContain(key!)
  })

  it('logs a model name with a line break or an ANSI escape on one escaped line', async () => {
    const result = await runCli(
      ['--config', join(repoRoot, 'examples/gateway.config.json'), '--port', '0', '--print-demo'],
      /curl .*\n/,
    )
    const url = /listening on (http:\/\/\S+)/.exec(result.stdout)![1]!
    const key = /Demo key: (\S+)/.exec(result.stdout)![1]!
    const forged = `2025-01-01T00:00:00.000Z req_forged 200 POST /v1/chat/completions key=sk-…0000 model=demo-echo ok 1ms`
    const model = `demo-echo\n${forged}\u001b[2K\r`
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(response.status).toBe(404)
    await vi.waitFor(() => expect(result.output()).toContain(' 404 POST '))
    const logged = result.output().slice(result.stdout.length).split('\n')
    const lines = logged.filter((line) => line.includes('/v1/chat/completions'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('model="demo-echo\\n2025-01-01T00:00:00.000Z req_forged 200 POST')
    expect(lines[0]).toContain('\\u001b[2K\\r"')
    expect(result.output()).not.toMatch(/^2025-01-01T00:00:00.000Z req_forged/m)
    expect(result.output()).not.toContain('\u001b')
  })

  it('parses flags in both spellings', () => {
    expect(parseCliArgs(['--config=a.json', '-p', '9000', '--host', '0.0.0.0'])).toEqual({
      config: 'a.json',
      port: 9000,
      host: '0.0.0.0',
      printDemo: false,
      noMigrate: false,
    })
    expect(() => parseCliArgs([])).toThrow('--config is required')
    expect(() => parseCliArgs(['--config', 'a', '--wat'])).toThrow('unknown option --wat')
  })
})
