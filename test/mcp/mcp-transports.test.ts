import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, createMemoryUsageMeter } from '../../src/index'
import { createGatewayWithState } from '../../src/node/index'
import { startSseFixtureServer, type SseFixtureServer } from '../helpers/mcp-legacy-servers'

const key = 'sk-test-mcpio-all-0123456789abcdefABCDEF'
const stdioScript = fileURLToPath(new URL('../helpers/stdio-mcp-server.mjs', import.meta.url))
type Handler = (request: Request) => Promise<Response>

async function connect(gateway: Handler) {
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://127.0.0.1:1/mcp'), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: async (input, init) => gateway(new Request(input, init)),
    }),
  )
  return client
}

function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content.map((block) => block.text).join('')
}

describe('an upstream with only the HTTP+SSE transport (2024-11-05)', () => {
  let legacy: SseFixtureServer
  let gateway: ReturnType<typeof createGateway>
  beforeAll(async () => {
    legacy = await startSseFixtureServer('legacy', 'legacy-secret-token')
    gateway = createGateway({
      mcp: {
        servers: [
          {
            id: 'legacy',
            url: legacy.url,
            transport: 'sse',
            headers: { authorization: 'Bearer legacy-secret-token' },
          },
        ],
        callTimeoutMs: 5000,
      },
      keys: [{ key, id: 'all', mcp: { servers: ['*'] } }],
      usageMeter: createMemoryUsageMeter(),
    })
  })
  afterAll(async () => {
    await gateway.close()
    await legacy.close()
  })

  it('lists and calls its tools through the gateway with the SDK client', async () => {
    const client = await connect(gateway)
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort()
    expect(tools).toEqual(['legacy__add', 'legacy__drop', 'legacy__echo'])
    expect(text(await client.callTool({ name: 'legacy__echo', arguments: { text: 'hi' } }))).toBe(
      'legacy:hi',
    )
    // Two calls at once on one upstream stream: each gets its own answer.
    const [a, b] = await Promise.all([
      client.callTool({ name: 'legacy__add', arguments: { a: 1, b: 2 } }),
      client.callTool({ name: 'legacy__add', arguments: { a: 40, b: 2 } }),
    ])
    expect([text(a), text(b)]).toEqual(['3', '42'])
    expect(legacy.authorizations.every((value) => value === 'Bearer legacy-secret-token')).toBe(
      true,
    )
    await client.close()
  })

  it('answers a JSON-RPC error when the stream drops mid-call, and the next call works', async () => {
    const client = await connect(gateway)
    expect(text(await client.callTool({ name: 'legacy__echo', arguments: { text: 'a' } }))).toBe(
      'legacy:a',
    )
    const opened = legacy.streams()
    const dropped = await client.callTool({ name: 'legacy__drop', arguments: {} }).then(
      () => undefined,
      (error: unknown) => error as Error,
    )
    expect(dropped?.message).toMatch(/MCP server "legacy" failed: its SSE stream/)
    expect(dropped?.message).not.toContain('legacy-secret-token')
    expect(text(await client.callTool({ name: 'legacy__echo', arguments: { text: 'b' } }))).toBe(
      'legacy:b',
    )
    expect(legacy.streams()).toBe(opened + 1)
    await client.close()
  })
})

describe('a stdio server started by createGatewayWithState', () => {
  let gateway: Awaited<ReturnType<typeof createGatewayWithState>>
  const logged: string[] = []
  const originalError = console.error
  beforeAll(async () => {
    process.env['MCPIO_TEST_SECRET'] = 'gateway-own-secret'
    console.error = (line: unknown) => void logged.push(String(line))
    gateway = await createGatewayWithState({
      mcp: {
        servers: [
          {
            id: 'local',
            command: process.execPath,
            args: [stdioScript],
            env: { FIXTURE_VAR: 'given' },
          },
        ],
        maxResponseBytes: 32768,
        callTimeoutMs: 5000,
      },
      keys: [{ key, id: 'all', mcp: { servers: ['*'] } }],
      usageMeter: createMemoryUsageMeter(),
    })
  })
  afterAll(async () => {
    console.error = originalError
    delete process.env['MCPIO_TEST_SECRET']
    await gateway.close()
  })

  it('lists and calls its tools; its environment holds env and not the gateway secrets', async () => {
    const client = await connect(gateway)
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort()
    expect(tools).toEqual(['local__big', 'local__echo', 'local__env', 'local__exit', 'local__pid'])
    expect(text(await client.callTool({ name: 'local__echo', arguments: { text: 'x' } }))).toBe(
      'stdio:x',
    )
    const env = (name: string) => client.callTool({ name: 'local__env', arguments: { name } })
    expect(text(await env('FIXTURE_VAR'))).toBe('given')
    expect(text(await env('MCPIO_TEST_SECRET'))).toBe('(unset)')
    expect(text(await env('PATH'))).toBe(process.env['PATH'])
    await client.close()
  })

  it('restarts a server that exits, and the next call works', async () => {
    const client = await connect(gateway)
    const before = Number(text(await client.callTool({ name: 'local__pid', arguments: {} })))
    await expect(client.callTool({ name: 'local__exit', arguments: {} })).rejects.toThrow(
      /MCP server "local" failed: exited \(code 3\)/,
    )
    const after = Number(text(await client.callTool({ name: 'local__pid', arguments: {} })))
    expect(after).not.toBe(before)
    expect(alive(before)).toBe(false)
    expect(logged.filter((line) => line.includes('MCP server "local" exited'))).toHaveLength(1)
    await client.close()
  })

  it('refuses a stdout line past maxResponseBytes and restarts the server', async () => {
    const client = await connect(gateway)
    await expect(client.callTool({ name: 'local__big', arguments: {} })).rejects.toThrow(
      /exceeds 32768 bytes/,
    )
    expect(text(await client.callTool({ name: 'local__echo', arguments: { text: 'y' } }))).toBe(
      'stdio:y',
    )
    await client.close()
  })

  it('kills the process on close', async () => {
    const client = await connect(gateway)
    const pid = Number(text(await client.callTool({ name: 'local__pid', arguments: {} })))
    expect(alive(pid)).toBe(true)
    await client.close()
    await gateway.close()
    expect(alive(pid)).toBe(false)
  })
})

describe('a command server without the Node entry', () => {
  it('is a clear config error', () => {
    expect(() =>
      createGateway({
        mcp: { servers: [{ id: 'local', command: 'node' }] },
        keys: [{ key, id: 'all' }],
      }),
    ).toThrow(/stdio servers run only on Node, started by the CLI or createGatewayWithState/)
  })
})

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
