import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatewayConfig } from '../../src/index'
import { guideSnippets, placeholderKey } from '../../src/console/guide/snippets'
import { startFixtureServer, type FixtureServer } from '../helpers/mcp-servers'
import { adminToken, ConsoleClient, consoleGateway, demoKey, origin } from './console-setup'

/**
 * The console's MCP items: `GET /console/api/mcp` lists only what a signed-in key may use (two keys
 * with different allowlists, in front of SDK-built servers), a server that is down is unhealthy,
 * and the call guide carries the MCP snippets only when the gateway has `mcp`.
 */
const upstreamToken = 'upstream-secret-console-alpha'
const keyAlpha = 'sk-console-mcp-alpha-0123456789'
const keyBeta = 'sk-console-mcp-beta-0123456789'
let alpha: FixtureServer
let beta: FixtureServer
let setup: ReturnType<typeof consoleGateway>

type Listing = {
  configured: boolean
  mcpUrl: string | null
  servers: Array<{
    id: string
    reachable: boolean
    lastErrorAt: number | null
    lastError: string | null
    toolCount: number | null
    tools: Array<{ name: string }>
  }>
}

beforeAll(async () => {
  alpha = await startFixtureServer('alpha', upstreamToken)
  beta = await startFixtureServer('beta')
  setup = consoleGateway({
    config: {
      mcp: {
        servers: [
          { id: 'alpha', url: alpha.url, headers: { authorization: `Bearer ${upstreamToken}` } },
          { id: 'beta', url: beta.url },
          // Nothing listens on the discard port: a server that is down.
          { id: 'down', url: 'http://127.0.0.1:9/mcp' },
        ],
      },
      keys: [
        { key: demoKey, id: 'key-demo', name: 'demo' },
        { key: keyAlpha, id: 'key-alpha', mcp: { servers: ['alpha', 'down'] } },
        { key: keyBeta, id: 'key-beta', mcp: { tools: ['beta__echo', 'beta__a*'] } },
      ],
    } as Partial<GatewayConfig>,
  })
})
afterAll(async () => {
  await alpha.close()
  await beta.close()
})

async function listing(secret: string): Promise<Listing> {
  const client = new ConsoleClient(setup.app)
  await client.signIn(secret)
  const answer = await client.call('GET', '/mcp')
  expect(answer.status).toBe(200)
  return answer.data as unknown as Listing
}

const toolNames = (list: Listing, server: string) =>
  list.servers
    .find((item) => item.id === server)
    ?.tools.map((tool) => tool.name)
    .sort()

describe('console: MCP servers and tools per key', () => {
  it('shows each key only its own servers and tools, the names clients call', async () => {
    const a = await listing(keyAlpha)
    expect(a.configured).toBe(true)
    expect(a.mcpUrl).toBe(`${origin}/mcp`)
    expect(a.servers.map((server) => server.id).sort()).toEqual(['alpha', 'down'])
    expect(toolNames(a, 'alpha')).toEqual([
      'alpha__add',
      'alpha__die',
      'alpha__echo',
      'alpha__slow',
    ])
    const b = await listing(keyBeta)
    expect(b.servers.map((server) => server.id)).toEqual(['beta'])
    expect(toolNames(b, 'beta')).toEqual(['beta__add', 'beta__echo'])
    expect(b.servers[0]!.toolCount).toBe(2)
    // A key without an `mcp` entry sees no server.
    expect((await listing(demoKey)).servers).toEqual([])
    // The upstream credential never reaches the console.
    expect(JSON.stringify([a, b])).not.toContain(upstreamToken)
  })

  it('shows a server that is down as unreachable, with the time of its error', async () => {
    const admin = await listing(adminToken)
    const byId = new Map(admin.servers.map((server) => [server.id, server]))
    expect([...byId.keys()].sort()).toEqual(['alpha', 'beta', 'down'])
    expect(byId.get('down')).toMatchObject({ reachable: false, toolCount: null, tools: [] })
    expect(byId.get('down')!.lastErrorAt).toEqual(expect.any(Number))
    expect(byId.get('down')!.lastError).toContain('"down"')
    expect(byId.get('alpha')).toMatchObject({ reachable: true, toolCount: 4, lastErrorAt: null })
  })

  it('probes the servers at most once per 30 s, however often the page is loaded', async () => {
    const before = alpha.authorizations.length
    await listing(adminToken)
    await listing(keyAlpha)
    expect(alpha.authorizations.length).toBe(before)
  })
})

describe('console: the call guide and MCP', () => {
  it('carries the MCP snippets only when the gateway has mcp', async () => {
    const client = new ConsoleClient(setup.app)
    const session = await client.signIn(adminToken)
    const info = (await client.call('GET', '/session')).data as { mcpUrl: string | null }
    expect(info.mcpUrl).toBe(`${origin}/mcp`)
    void session
    const input = { baseUrl: origin, apiKey: keyBeta, model: 'echo-1' }
    const withMcp = guideSnippets({ ...input, mcpUrl: info.mcpUrl! })
    const ids = withMcp.filter((item) => item.section === 'MCP').map((item) => item.id)
    expect(ids).toEqual(['mcp-claude-code', 'mcp-codex', 'mcp-gemini-cli', 'mcp-ai-sdk'])
    const claude = withMcp.find((item) => item.id === 'mcp-claude-code')!.code
    expect(claude).toBe(
      `claude mcp add --transport http model-gateway ${origin}/mcp --header 'Authorization: Bearer ${keyBeta}'`,
    )
    expect(withMcp.find((item) => item.id === 'mcp-codex')!.code).toContain(
      `url = "${origin}/mcp"\nbearer_token_env_var = "MODEL_GATEWAY_API_KEY"`,
    )
    expect(guideSnippets(input).some((item) => item.section === 'MCP')).toBe(false)
    expect(guideSnippets({ ...input, apiKey: placeholderKey, mcpUrl: 'x' }).at(-1)!.code).toContain(
      placeholderKey,
    )

    const plain = consoleGateway()
    const other = new ConsoleClient(plain.app)
    await other.signIn(adminToken)
    expect(((await other.call('GET', '/session')).data as { mcpUrl: unknown }).mcpUrl).toBeNull()
    expect((await other.call('GET', '/mcp')).data).toEqual({
      configured: false,
      mcpUrl: null,
      servers: [],
    })
  })

  it("Gemini CLI's settings, as the guide fills them in, reach the key's tools", async () => {
    const snippet = guideSnippets({
      baseUrl: origin,
      apiKey: keyBeta,
      model: 'echo-1',
      mcpUrl: `${origin}/mcp`,
    }).find((item) => item.id === 'mcp-gemini-cli')!
    const settings = JSON.parse(snippet.code) as {
      mcpServers: Record<string, { httpUrl: string; headers: Record<string, string> }>
    }
    const server = settings.mcpServers['model-gateway']!
    const client = new Client({ name: 'guide-check', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(server.httpUrl), {
      requestInit: { headers: server.headers },
      fetch: (url, init) => setup.app(new Request(url, init)),
    })
    await client.connect(transport)
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual(['beta__add', 'beta__echo'])
    await client.close()
  })
})
