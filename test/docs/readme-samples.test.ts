import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { codeBlocks, readDoc } from './markdown'
import { removeProject, startProject, writeProject } from './run-project'

/**
 * The README's quick start, run: its gateway (the first TypeScript block, with the OpenAI upstream
 * swapped for the built-in mock, so no key is needed) served with `serveGateway`, and its client
 * (the openai SDK block, streaming from model `fast` with the quick start's key) run as pasted,
 * its base URL's port aside, with tsx as TypeScript runs on Node 20.
 */
const page = 'README.md'
const lines = readDoc(page).split('\n')
const from = lines.indexOf('## Quick start') + 1
const to = lines.indexOf('## Clients') + 1
const ts = codeBlocks(page).filter(
  (block) => block.lang === 'ts' && block.line > from && block.line < to,
)
const upstreams = /upstreams: \[\{ baseUrl: 'https:\/\/api\.openai\.com\/v1'[^\]]*\]/
const baseUrl = 'http://127.0.0.1:8787/v1'

const folders: string[] = []
afterAll(() => folders.forEach(removeProject))

describe("the README's quick start", () => {
  it('has a gateway block and a client block', () => {
    expect(ts).toHaveLength(2)
    expect(ts[0]!.code).toMatch(upstreams)
    expect(ts[1]!.code).toContain(`baseURL: '${baseUrl}'`)
  })

  it("the client streams the gateway's answer", async () => {
    const [gateway, client] = ts
    const server = [
      gateway!.code.replace(upstreams, "upstreams: [{ provider: 'mock' }]"),
      "import { serveGateway } from 'model-gateway/node'",
      "const served = await serveGateway(gateway, { port: Number(process.env.PORT), host: '127.0.0.1' })",
      'console.log(`model-gateway listening on ${served.url}`)',
    ].join('\n')
    const folder = writeProject({ 'server.mts': server }, ['model-gateway', 'openai', 'tsx'])
    folders.push(folder)
    const running = await startProject(folder, ['--import', 'tsx', 'server.mts'])
    try {
      const port = String(running.port)
      writeFileSync(join(folder, 'client.mts'), client!.code.replace(':8787/', `:${port}/`))
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'client.mts'],
        { cwd: folder, timeout: 30_000 },
      )
      expect(stdout).toBe('You said: Hi')
    } finally {
      await running.stop()
    }
  })
})
