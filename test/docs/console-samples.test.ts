import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { codeBlocks, readDoc } from './markdown'
import { removeProject, sendCurl, startProject, writeProject } from './run-project'

/**
 * docs/console.md's two programs under "Mount it in code", run: the in-memory one (a module whose
 * default export is `{ fetch }`, as Bun and Workers take it) imported and asked for the console
 * page and a chat completion; the PostgreSQL one served beside a database of its own, its port
 * aside, with a start line added so the test knows when it listens.
 */
const page = 'docs/console.md'
const lines = readDoc(page).split('\n')
const from = lines.indexOf('## Mount it in code') + 1
const to = lines.indexOf('## Sign-in, roles and sessions') + 1
const ts = codeBlocks(page).filter(
  (block) => block.lang === 'ts' && block.line > from && block.line < to,
)
const token = 'console-admin-token-for-the-docs-test'
const express = codeBlocks('docs/deployment.md').filter((block) => block.lang === 'json')
const curl = codeBlocks('docs/deployment.md').find((block) => block.code.startsWith('curl '))!.code

const folders: string[] = []
let database: TestDatabase | undefined
afterAll(async () => {
  folders.forEach(removeProject)
  await database?.drop()
})

describe("docs/console.md's programs", () => {
  it('are an in-memory module and a PostgreSQL server', () => {
    expect(ts).toHaveLength(2)
    expect(ts[0]!.code).toContain('export default { fetch: withConsole(gateway, consoleHandler) }')
    expect(ts[1]!.code).toContain('await serveGateway(gateway, { port: 8787')
  })

  it('the in-memory module serves the console and the API from one fetch', async () => {
    const check = [
      "import app from './app.mts'",
      "const page = await app.fetch(new Request('http://127.0.0.1/console/'))",
      "const chat = await app.fetch(new Request('http://127.0.0.1/v1/chat/completions', {",
      "  method: 'POST',",
      "  headers: { authorization: 'Bearer sk-demo-local-only-0123456789', 'content-type': 'application/json' },",
      "  body: JSON.stringify({ model: 'demo-echo', messages: [{ role: 'user', content: 'Hi' }] }),",
      '}))',
      'const answer = await chat.json()',
      "console.log(JSON.stringify([page.status, page.headers.get('content-type'), chat.status, answer.choices[0].message.content]))",
    ].join('\n')
    const folder = writeProject({ 'app.mts': ts[0]!.code, 'check.mts': check }, [
      'model-gateway',
      'tsx',
    ])
    folders.push(folder)
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'check.mts'],
      { cwd: folder, timeout: 30_000, env: { ...process.env, CONSOLE_ADMIN_TOKEN: token } },
    )
    expect(JSON.parse(stdout)).toEqual([
      200,
      expect.stringMatching(/^text\/html/),
      200,
      'You said: Hi',
    ])
  })

  it('the PostgreSQL server migrates its database, serves the console and answers', async () => {
    database = await createTestDatabase('console_docs')
    // The Express project's offline config, with this page's `console` section.
    const consoleSection = codeBlocks(page).find(
      (block) => block.lang === 'json' && block.code.includes('"console"'),
    )!
    const config = { ...JSON.parse(express[1]!.code), ...JSON.parse(consoleSection.code) }
    const server = [
      ts[1]!.code.replace('port: 8787', 'port: Number(process.env.PORT)'),
      'console.log(`model-gateway listening on http://127.0.0.1:${process.env.PORT}`)',
    ].join('\n')
    const folder = writeProject(
      {
        'server.mts': server,
        'gateway.config.json': JSON.stringify({ ...config, state: { postgres: database.url } }),
      },
      ['model-gateway', 'tsx', 'pg'],
    )
    folders.push(folder)
    const running = await startProject(folder, ['--import', 'tsx', 'server.mts'], {
      CONSOLE_ADMIN_TOKEN: token,
      CONSOLE_VIEWER_TOKEN: `${token}-viewer`,
      CONSOLE_SESSION_SECRET: 'a-session-secret-for-the-docs-test-0123456789',
    })
    try {
      expect(running.output()).not.toMatch(/error/i)
      const page = await fetch(`http://127.0.0.1:${running.port}/console/`)
      expect(page.status).toBe(200)
      expect(await sendCurl(running.port, curl)).toEqual({
        status: 200,
        content: 'You said: Hello',
      })
      const { rows } = await database.pool.query(
        "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name LIKE '%usage_ledger%'",
      )
      expect(rows[0].n).toBeGreaterThan(0)
    } finally {
      await running.stop()
    }
  }, 90_000)
})
