import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort } from '../helpers/redis'
import { repoRoot } from '../helpers/spawn-runtime'
import { codeBlocks, readDoc } from './markdown'

/**
 * docs/deployment.md's Express project, as a reader pastes it: its `package.json`,
 * `gateway.config.json` and `server.js` written into an empty folder, `model-gateway` and
 * `express` installed (linked: this repository's built package, and its express), started with
 * the page's start line, and called with the page's curl body.
 */
const page = 'docs/deployment.md'
const text = readDoc(page).split('\n')
const from = text.indexOf('## Express') + 1
const to = text.indexOf('## Bun') + 1
const blocks = codeBlocks(page).filter((block) => block.line > from && block.line < to)
const byLang = (lang: string) => blocks.filter((block) => block.lang === lang)

const folder = mkdtempSync(join(tmpdir(), 'mg-express-project-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe("docs/deployment.md's Express project", () => {
  it('has a package.json, an offline config, a server.js and a curl line', () => {
    expect(byLang('json')).toHaveLength(2)
    expect(byLang('js')).toHaveLength(1)
    expect(byLang('sh')).toHaveLength(1)
    const manifest = JSON.parse(byLang('json')[0]!.code)
    expect(manifest).toMatchObject({ type: 'module', scripts: { start: 'node server.js' } })
    expect(JSON.parse(byLang('json')[1]!.code).groups[0].upstreams).toEqual([{ provider: 'mock' }])
  })

  it('starts with its start line, says where it listens, and answers the curl line', async () => {
    const [manifest, config] = byLang('json')
    writeFileSync(join(folder, 'package.json'), manifest!.code)
    writeFileSync(join(folder, 'gateway.config.json'), config!.code)
    writeFileSync(join(folder, 'server.js'), byLang('js')[0]!.code)
    mkdirSync(join(folder, 'node_modules'))
    symlinkSync(repoRoot, join(folder, 'node_modules', 'model-gateway'), 'dir')
    symlinkSync(
      join(repoRoot, 'node_modules', 'express'),
      join(folder, 'node_modules', 'express'),
      'dir',
    )
    const start = JSON.parse(manifest!.code).scripts.start.split(' ') as string[]
    expect(start[0]).toBe('node')
    const port = await freePort()
    const child = spawn(process.execPath, start.slice(1), {
      cwd: folder,
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (data: Buffer) => void (output += data.toString()))
    child.stderr.on('data', (data: Buffer) => void (output += data.toString()))
    try {
      await expect
        .poll(() => output, { timeout: 30_000, interval: 100 })
        .toContain(`model-gateway listening on http://127.0.0.1:${port}`)
      const curl = byLang('sh')[0]!.code
      const key = /Bearer (sk-[\w-]+)/.exec(curl)![1]!
      const body = /-d '(.*)'/.exec(curl)![1]!
      const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      })
      expect(response.status).toBe(200)
      const answer = (await response.json()) as { choices: [{ message: { content: string } }] }
      expect(answer.choices[0].message.content).toBe('You said: Hello')
    } finally {
      child.kill('SIGKILL')
    }
  })
})
