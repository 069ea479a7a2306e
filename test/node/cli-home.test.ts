import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repoRoot } from '../helpers/spawn-runtime'
import { runCli, serveCli, type ServedCli } from '../helpers/cli'
import { createHome } from '../../src/node/cli/cli-home'

const demoConfig = join(repoRoot, 'examples/gateway.config.json')
const env = { CONSOLE_ADMIN_TOKEN: 'console-admin-token-for-the-start-test' }

describe('the CLI at start: the root address and a busy port', () => {
  let served: ServedCli
  beforeAll(async () => {
    served = await serveCli(['--config', demoConfig, '--port', '0'], env)
  })
  afterAll(() => served.stop())

  it('answers GET / with JSON naming the gateway, its version, the API bases and the console', async () => {
    const response = await fetch(`${served.url}/`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json')
    const body = await response.json()
    expect(body).toEqual({
      name: 'model-gateway',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      api: {
        openai: `${served.url}/v1`,
        anthropic: served.url,
        gemini: `${served.url}/v1beta`,
      },
      console: `${served.url}/console/`,
    })
  })

  it('answers a browser with a small page, and never shows a key or a token', async () => {
    const response = await fetch(`${served.url}/`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    const page = await response.text()
    expect(page).toContain('<h1>model-gateway ')
    expect(page).toContain(`${served.url}/v1`)
    expect(page).toContain(`href="${served.url}/console/"`)
    expect(page).not.toContain('sk-demo')
    expect(page).not.toContain(env.CONSOLE_ADMIN_TOKEN)
  })

  it('leaves every other path to the gateway, and refuses other methods on /', async () => {
    const unknown = await fetch(`${served.url}/nothing-here`)
    expect(unknown.status).toBe(404)
    const post = await fetch(`${served.url}/`, { method: 'POST', body: '{}' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD')
  })

  it('says in one line that the port is taken, and which flag changes it', async () => {
    const port = Number(new URL(served.url).port)
    const result = await runCli(['--config', demoConfig, '--port', String(port)], env)
    expect(result.code).toBe(1)
    const errors = result.stderr.trim().split('\n')
    expect(errors).toEqual([
      `model-gateway: port ${port} is already in use on 127.0.0.1; choose another with --port <n> (npm start -- --port <n>).`,
    ])
    expect(result.stderr).not.toMatch(/EADDRINUSE|\n\s+at /)
  })
})

describe('the CLI on a port held by another program', () => {
  it('names that port too', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const { port } = blocker.address() as { port: number }
    try {
      const result = await runCli(['--config', demoConfig, '-p', String(port)], env)
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`port ${port} is already in use`)
    } finally {
      blocker.close()
    }
  })
})

describe('GET / under a basePath', () => {
  it('names the API bases under the path the gateway serves them on', async () => {
    const home = createHome('1.2.3', undefined, '/llm')
    const response = await home(new Request('http://127.0.0.1:9/'))
    expect(await response.json()).toEqual({
      name: 'model-gateway',
      version: '1.2.3',
      api: {
        openai: 'http://127.0.0.1:9/llm/v1',
        anthropic: 'http://127.0.0.1:9/llm',
        gemini: 'http://127.0.0.1:9/llm/v1beta',
      },
      console: null,
    })
  })
})
