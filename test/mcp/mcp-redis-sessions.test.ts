import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { createRedisMcpSessionStore } from '../../src/mcp/redis/redis-session-store'
import { startFixtureServer, type FixtureServer } from '../helpers/mcp-servers'
import { connectRedis, scriptClient, type TestRedis } from '../helpers/redis'

const key = 'sk-test-mcp-redis-0123456789abcdefABCD'
const prefix = `mcptest${process.pid}`
let redis: TestRedis
let server: FixtureServer

beforeAll(async () => {
  redis = await connectRedis()
  server = await startFixtureServer('alpha')
})

afterAll(async () => {
  const left = await redis.keys(`${prefix}:*`)
  if (left.length > 0) await redis.del(left)
  await redis.quit()
  await server.close()
})

function instance() {
  return createGateway({
    mcp: { servers: [{ id: 'alpha', url: server.url }] },
    mcpSessionStore: createRedisMcpSessionStore({
      client: scriptClient(redis),
      prefix,
      ttlSeconds: 60,
    }),
    groups: [
      { id: 'demo', protocol: 'openai', models: ['demo'], upstreams: [{ provider: 'mock' }] },
    ],
    keys: [{ key, id: 'k', mcp: { servers: ['alpha'] } }],
  })
}

it('two instances on Redis serve one session alternately', async () => {
  const instances = [instance(), instance()]
  let turn = 0
  const served: number[] = []
  const client = new Client({ name: 'alternating', version: '1' })
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:1/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: async (input, init) => {
      const which = turn++ % 2
      served.push(which)
      return instances[which]!(new Request(input, init))
    },
  })
  await client.connect(transport)
  for (let round = 0; round < 6; round++) {
    const result = await client.callTool({ name: 'alpha__echo', arguments: { text: `r${round}` } })
    expect(result.content).toEqual([{ type: 'text', text: `alpha:r${round}` }])
  }
  expect((await client.listTools()).tools.length).toBe(4)
  expect(new Set(served)).toEqual(new Set([0, 1]))
  // One upstream session for the client session, opened once and reused by both instances.
  const stored = await redis.keys(`${prefix}:mcp:s:*`)
  expect(stored).toHaveLength(1)
  const upstream = await redis.hGet(stored[0]!, 'u:alpha')
  expect(upstream).toMatch(/^2025-11-25 [0-9a-f-]{36}$/)
  await client.close()
  await transport.terminateSession().catch(() => undefined)
  await Promise.all(instances.map((gateway) => gateway.close()))
})
