import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runtimeBin, spawnRuntime, type RunningExample } from '../helpers/spawn-runtime'

// The key and model of examples/gateway.config.json.
const demoKey = 'sk-demo-local-only-0123456789'
const model = 'demo-echo'
const hostNode = `Node ${process.versions.node.split('.')[0]}`
// The admin token the example config's console reads (`${CONSOLE_ADMIN_TOKEN}`).
const consoleToken = 'console-admin-token-for-the-runtime-tests'

type Example = { name: string; command: () => string; args: string[] }

const examples: Example[] = [
  // The host Node (20) cannot run TypeScript, so tsx's loader does; Node 24 strips the types
  // itself, which also proves the examples are erasable TypeScript whose imports resolve as-is.
  {
    name: `node-http example on ${hostNode} through tsx`,
    command: () => process.execPath,
    args: ['--import', 'tsx', 'examples/node-http/server.ts'],
  },
  {
    name: 'node-http example on Node 24 with built-in type stripping',
    command: () => runtimeBin('node'),
    args: ['examples/node-http/server.ts'],
  },
  {
    name: `express example on ${hostNode} through tsx`,
    command: () => process.execPath,
    args: ['--import', 'tsx', 'examples/express/server.ts'],
  },
  {
    name: 'bun example on Bun',
    command: () => runtimeBin('bun'),
    args: ['examples/bun/server.ts'],
  },
  {
    name: 'deno example on Deno',
    command: () => runtimeBin('deno'),
    args: ['run', '--allow-net=127.0.0.1', '--allow-env', 'examples/deno/server.ts'],
  },
  {
    // miniflare 4 needs Node >= 22, so the Node 24 from test/runtimes runs it.
    name: 'workers example on workerd through Miniflare',
    command: () => runtimeBin('node'),
    args: ['test/runtimes/run-worker.mjs', 'examples/workers/worker.ts'],
  },
]

describe.each(examples)('$name', ({ name, command, args }) => {
  let example: RunningExample | undefined
  let client: OpenAI
  const text = `hello from the ${name.split(' ')[0]} example`

  beforeAll(async () => {
    example = await spawnRuntime({
      command: command(),
      args,
      env: { CONSOLE_ADMIN_TOKEN: consoleToken },
      startupTimeoutMs: 30_000,
    })
    client = new OpenAI({
      apiKey: demoKey,
      baseURL: `${example.url}/v1`,
      maxRetries: 0,
      timeout: 15_000,
    })
  }, 40_000)

  afterAll(async () => {
    await example?.stop()
  }, 15_000)

  it('answers a chat completion with the mock echo', async () => {
    const completion = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: text }],
    })

    expect(completion.choices[0]?.message.content).toBe(`You said: ${text}`)
  })

  it('streams a chat completion in several chunks', async () => {
    const stream = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: text }],
      stream: true,
    })
    const deltas: string[] = []
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta.content
      if (content) deltas.push(content)
    }

    expect(deltas.join('')).toBe(`You said: ${text}`)
    expect(deltas.length).toBeGreaterThanOrEqual(3)
  })

  it('answers a Gemini client through /v1beta, which every example mounts', async () => {
    const google = new GoogleGenAI({ apiKey: demoKey, httpOptions: { baseUrl: example!.url } })
    const answer = await google.models.generateContent({ model, contents: text })

    expect(answer.text).toBe(`You said: ${text}`)
  })

  it('serves the console: its page under a strict CSP, its embedded assets, sign-in and keys', async () => {
    const base = `${example!.url}/console`
    const page = await fetch(`${base}/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    const html = await page.text()
    const script = /src="(\/console\/assets\/app\.[0-9a-f]+\.js)"/.exec(html)?.[1]
    expect(script).toBeDefined()
    const asset = await fetch(`${example!.url}${script}`)
    expect(asset.headers.get('content-type')).toContain('text/javascript')
    expect((await asset.text()).length).toBeGreaterThan(10_000)

    const signIn = await fetch(`${base}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: example!.url },
      body: JSON.stringify({ secret: consoleToken }),
    })
    expect(signIn.status).toBe(200)
    const cookie = signIn.headers.getSetCookie()[0]!
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    const keys = await fetch(`${base}/api/keys`, { headers: { cookie: cookie.split(';')[0]! } })
    const body = (await keys.json()) as { baseUrl: string; keys: Array<{ masked: string }> }
    expect(body.baseUrl).toBe(example!.url)
    expect(body.keys.map((key) => key.masked)).toEqual(['sk-…6789'])
  })
})
