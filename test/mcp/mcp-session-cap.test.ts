import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createGateway } from '../../src/index'
import { createRedisMcpSessionStore } from '../../src/mcp/redis/redis-session-store'
import type { McpSessionStore } from '../../src/mcp/session-store'
import { startFixtureServer, type FixtureServer } from '../helpers/mcp-servers'
import { connectRedis, scriptClient, type TestRedis } from '../helpers/redis'

const key = 'sk-test-mcp-cap-0123456789abcdefABCDEF'
const otherKey = 'sk-test-mcp-cap-other-0123456789abcdEF'
const prefix = `mcpcap${process.pid}`
let redis: TestRedis
let upstream: FixtureServer

beforeAll(async () => {
  redis = await connectRedis()
  upstream = await startFixtureServer('alpha')
})

afterAll(async () => {
  const left = await redis.keys(`${prefix}:*`)
  if (left.length > 0) await redis.del(left)
  await redis.quit()
  await upstream.close()
})

function instance(sessionStore?: McpSessionStore) {
  return createGateway({
    mcp: { servers: [{ id: 'alpha', url: upstream.url }], maxSessionsPerKey: 3 },
    ...(sessionStore === undefined ? {} : { mcpSessionStore: sessionStore }),
    groups: [
      { id: 'demo', protocol: 'openai', models: ['demo'], upstreams: [{ provider: 'mock' }] },
    ],
    keys: [
      { key, id: 'capped', mcp: { servers: ['alpha'] } },
      { key: otherKey, id: 'other', mcp: { servers: ['alpha'] } },
    ],
  })
}

async function connect(gateways: ReturnType<typeof createGateway>[], bearer = key) {
  let turn = 0
  const client = new Client({ name: 'cap-client', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:1/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
    fetch: async (input, init) => gateways[turn++ % gateways.length]!(new Request(input, init)),
  })
  await client.connect(transport)
  return client
}

async function echo(client: Client, text: string) {
  const result = await client.callTool({ name: 'alpha__echo', arguments: { text } })
  return result.content
}

describe.each([
  ['memory', () => [instance()]],
  [
    'Redis, two instances',
    () => {
      const store = () =>
        createRedisMcpSessionStore({ client: scriptClient(redis), prefix, ttlSeconds: 60 })
      return [instance(store()), instance(store())]
    },
  ],
] as const)('mcp.maxSessionsPerKey (%s)', (_name, build) => {
  it("a key's fourth session ends its least recently used one; other keys keep theirs", async () => {
    const gateways = build()
    const deletedBefore = upstream.deleted()
    const first = await connect(gateways)
    const second = await connect(gateways)
    const third = await connect(gateways)
    const other = await connect(gateways, otherKey)
    // Each opens its upstream session; the second is then the least recently used.
    for (const client of [second, third, first]) {
      expect(await echo(client, 'a')).toEqual([{ type: 'text', text: 'alpha:a' }])
    }
    const fourth = await connect(gateways)

    // The evicted session is unknown: 404 with a JSON-RPC error, as for an expired one.
    await expect(echo(second, 'b')).rejects.toThrow(/404|Session not found/)
    // Its upstream session was ended too.
    await vi.waitFor(() => expect(upstream.deleted()).toBe(deletedBefore + 1))
    for (const client of [first, third, fourth, other]) {
      expect(await echo(client, 'c')).toEqual([{ type: 'text', text: 'alpha:c' }])
    }
    // A new client of the key is always served: opening never fails on the bound.
    const fifth = await connect(gateways)
    expect(await echo(fifth, 'd')).toEqual([{ type: 'text', text: 'alpha:d' }])
    // The fifth took the place of the key's least recently used: the first, used first above.
    await expect(echo(first, 'e')).rejects.toThrow(/404|Session not found/)
    expect(await echo(third, 'f')).toEqual([{ type: 'text', text: 'alpha:f' }])

    if (gateways.length === 2) {
      expect(await redis.zCard(`${prefix}:mcp:k:{capped}`)).toBe(3)
      expect(await redis.zCard(`${prefix}:mcp:k:{other}`)).toBe(1)
      const sessions = await redis.keys(`${prefix}:mcp:s:*`)
      expect(sessions).toHaveLength(4)
    }
    for (const client of [first, second, third, fourth, fifth, other]) await client.close()
    await Promise.all(gateways.map((gateway) => gateway.close()))
  })

  it('a session ended with DELETE frees its place at once', async () => {
    const gateways = build()
    const clients = [await connect(gateways), await connect(gateways), await connect(gateways)]
    const transport = clients[2]!.transport as StreamableHTTPClientTransport
    await transport.terminateSession()
    await connect(gateways)
    // Three live sessions again, and none of the first two was evicted for the new one.
    for (const client of clients.slice(0, 2)) {
      expect(await echo(client, 'g')).toEqual([{ type: 'text', text: 'alpha:g' }])
    }
    if (gateways.length === 2) {
      expect(await redis.zCard(`${prefix}:mcp:k:{capped}`)).toBe(3)
    }
    for (const client of clients) await client.close()
    await Promise.all(gateways.map((gateway) => gateway.close()))
  })
})
