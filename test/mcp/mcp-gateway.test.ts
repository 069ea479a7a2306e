import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, createMemoryUsageMeter, type RequestEvent } from '../../src/index'
import { startFixtureServer, type FixtureServer } from '../helpers/mcp-servers'

const keys = {
  all: 'sk-test-mcp-all-0123456789abcdefABCDEF',
  alpha: 'sk-test-mcp-alpha-0123456789abcdefABCD',
  none: 'sk-test-mcp-none-0123456789abcdefABCDE',
  limited: 'sk-test-mcp-limited-0123456789abcdefAB',
  listing: 'sk-test-mcp-listing-0123456789abcdefAB',
}
const gatewayUrl = 'http://127.0.0.1:1/mcp'

let alpha: FixtureServer
let beta: FixtureServer
let gateway: ReturnType<typeof createGateway>
const events: RequestEvent[] = []

beforeAll(async () => {
  alpha = await startFixtureServer('alpha', 'upstream-secret-alpha-token')
  beta = await startFixtureServer('beta')
  gateway = createGateway({
    mcp: {
      servers: [
        {
          id: 'alpha',
          url: alpha.url,
          headers: { authorization: 'Bearer upstream-secret-alpha-token' },
        },
        { id: 'beta', url: beta.url },
      ],
      callTimeoutMs: 3000,
    },
    keys: [
      { key: keys.all, id: 'all', mcp: { servers: ['*'] } },
      { key: keys.alpha, id: 'alpha-only', mcp: { tools: ['alpha__echo', 'beta__a*'] } },
      { key: keys.none, id: 'none' },
      {
        key: keys.limited,
        id: 'limited',
        mcp: { servers: ['*'] },
        // initialize counts too: one session and two calls.
        limits: { requestsPerMinute: 3 },
      },
      {
        key: keys.listing,
        id: 'listing',
        mcp: { servers: ['*'] },
        limits: { requestsPerMinute: 4 },
      },
    ],
    groups: [
      { id: 'demo', protocol: 'openai', models: ['demo-echo'], upstreams: [{ provider: 'mock' }] },
    ],
    usageMeter: createMemoryUsageMeter(),
    onEvent: (event) => events.push(event),
  })
})

afterAll(async () => {
  await gateway.close()
  await alpha.close()
  await beta.close()
})

async function connect(key: string, path = '/mcp') {
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(path, gatewayUrl), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: async (input, init) => gateway(new Request(input, init)),
  })
  await client.connect(transport)
  return { client, transport }
}

describe('MCP gateway with the official SDK client', () => {
  it('lists and calls prefixed tools, prompts and resources of both servers', async () => {
    const { client } = await connect(keys.all)
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort()
    expect(tools).toEqual([
      'alpha__add',
      'alpha__die',
      'alpha__echo',
      'alpha__slow',
      'beta__add',
      'beta__die',
      'beta__echo',
      'beta__slow',
    ])
    const result = await client.callTool({ name: 'beta__echo', arguments: { text: 'hi' } })
    expect(result.content).toEqual([{ type: 'text', text: 'beta:hi' }])
    const sum = await client.callTool({ name: 'alpha__add', arguments: { a: 2, b: 3 } })
    expect(sum.content).toEqual([{ type: 'text', text: '5' }])
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort()
    expect(prompts).toEqual(['alpha__greet', 'beta__greet'])
    const prompt = await client.getPrompt({ name: 'alpha__greet', arguments: { who: 'Ada' } })
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Hello Ada from alpha' })
    const resources = (await client.listResources()).resources.map((r) => r.uri).sort()
    expect(resources).toEqual([
      'mcp-gateway://alpha/alpha://readme',
      'mcp-gateway://beta/beta://readme',
    ])
    const read = await client.readResource({ uri: 'mcp-gateway://beta/beta://readme' })
    expect(read.contents[0]).toMatchObject({
      uri: 'mcp-gateway://beta/beta://readme',
      text: 'readme of beta',
    })
    // The client's key never reaches the server; the server's own credential does.
    expect(alpha.authorizations.every((a) => a === 'Bearer upstream-secret-alpha-token')).toBe(true)
    expect(beta.authorizations.every((a) => a === '')).toBe(true)
    const call = events.find((event) => event.model === 'beta__echo')
    expect(call).toMatchObject({
      route: 'mcp',
      group: 'mcp',
      provider: 'beta',
      keyId: 'all',
      status: 200,
    })
    expect(JSON.stringify(events)).not.toContain('hi"')
    await client.close()
  })

  it('serves one server alone under /mcp/{server}, names unprefixed', async () => {
    const { client } = await connect(keys.all, '/mcp/beta')
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort()
    expect(tools).toEqual(['add', 'die', 'echo', 'slow'])
    const result = await client.callTool({ name: 'echo', arguments: { text: 'x' } })
    expect(result.content).toEqual([{ type: 'text', text: 'beta:x' }])
    await client.close()
  })

  it('relays progress notifications within a call', async () => {
    const { client } = await connect(keys.all)
    const progress: number[] = []
    const call = client.callTool({ name: 'alpha__slow', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
      timeout: 10_000,
    })
    await expect(call).resolves.toMatchObject({ content: [{ type: 'text', text: 'slow done' }] })
    expect(progress).toEqual([1, 2, 3])
    await client.close()
  }, 15_000)

  it('relays a cancellation to the server', async () => {
    const { client } = await connect(keys.all)
    const before = beta.cancelled()
    const controller = new AbortController()
    const call = client.callTool({ name: 'beta__slow', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('stop'),
    })
    await expect(call).rejects.toThrow()
    await expect.poll(() => beta.cancelled(), { timeout: 3000 }).toBe(before + 1)
    await client.close()
  })

  it('each key sees and calls only its own tools; a guessed denied tool is refused', async () => {
    const { client } = await connect(keys.alpha)
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort()
    expect(tools).toEqual(['alpha__echo', 'beta__add'])
    expect((await client.listPrompts()).prompts).toEqual([])
    const ok = await client.callTool({ name: 'alpha__echo', arguments: { text: 'y' } })
    expect(ok.content).toEqual([{ type: 'text', text: 'alpha:y' }])
    for (const name of ['alpha__add', 'beta__echo', 'gamma__x', 'alpha__nope']) {
      await expect(client.callTool({ name, arguments: { a: 1, b: 2, text: 'z' } })).rejects.toThrow(
        `Unknown tool: ${name}`,
      )
    }
    await client.close()
    const none = await connect(keys.none)
    expect((await none.client.listTools()).tools).toEqual([])
    await expect(
      none.client.callTool({ name: 'alpha__echo', arguments: { text: 'y' } }),
    ).rejects.toThrow('Unknown tool')
    await none.client.close()
  })

  it('tool calls count against requestsPerMinute', async () => {
    const { client } = await connect(keys.limited)
    await client.callTool({ name: 'beta__echo', arguments: { text: '1' } })
    await client.callTool({ name: 'beta__echo', arguments: { text: '2' } })
    await expect(client.callTool({ name: 'beta__echo', arguments: { text: '3' } })).rejects.toThrow(
      /requests per minute|rate/i,
    )
    await client.close()
  })

  it('initialize, the lists and prompts count against requestsPerMinute: past it 429 with a JSON-RPC error', async () => {
    const { client } = await connect(keys.listing)
    expect((await client.listTools()).tools.length).toBe(8)
    expect((await client.listPrompts()).prompts.length).toBeGreaterThan(0)
    const prompt = await client.getPrompt({ name: 'alpha__greet', arguments: { who: 'x' } })
    expect(prompt.messages.length).toBe(1)
    // initialize, two lists and a prompt: the fifth request of the minute is refused, before any
    // fan-out.
    const refused = await client.listTools().then(
      () => undefined,
      (error: Error & { code?: number }) => error,
    )
    expect(refused?.code).toBe(429)
    expect(refused?.message).toMatch(/"code":-32002.*requests per minute/i)
    // So is a new session.
    await expect(connect(keys.listing)).rejects.toMatchObject({ code: 429 })
    const raw = await gateway(
      new Request(gatewayUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${keys.listing}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          },
        }),
      }),
    )
    expect(raw.status).toBe(429)
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(raw.headers.get('mcp-session-id')).toBeNull()
    const body = (await raw.json()) as { error: { code: number; message: string } }
    expect(body.error.code).toBe(-32002)
    expect(body.error.message).toMatch(/requests per minute/i)
    // Another key is not affected.
    const other = await connect(keys.all)
    expect((await other.client.listTools()).tools.length).toBe(8)
    await other.client.close()
    await client.close()
  })

  it('an upstream that dies mid-call gives a JSON-RPC error and the next call works', async () => {
    const { client } = await connect(keys.all)
    const dying = client.callTool({ name: 'alpha__die', arguments: {} })
    await new Promise((resolve) => setTimeout(resolve, 200))
    alpha.kill()
    const error = await dying.then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error?.message).toMatch(/MCP server "alpha" failed/)
    expect(error?.message).not.toContain('upstream-secret-alpha-token')
    const next = await client.callTool({ name: 'alpha__echo', arguments: { text: 'again' } })
    expect(next.content).toEqual([{ type: 'text', text: 'alpha:again' }])
    await client.close()
  })

  it('refuses requests without a key, and sessions of another key', async () => {
    const unauthenticated = await gateway(
      new Request(gatewayUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      }),
    )
    expect(unauthenticated.status).toBe(401)
    expect(await unauthenticated.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32004 } })
    const { client, transport } = await connect(keys.all)
    const stolen = await gateway(
      new Request(gatewayUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${keys.alpha}`,
          'mcp-session-id': transport.sessionId!,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      }),
    )
    expect(stolen.status).toBe(404)
    await client.close()
  })
})
