import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { startFixtureServer, type FixtureServer } from '../helpers/mcp-servers'

const key = 'sk-test-mcp-oauth-0123456789abcdefABCD'
let upstream: FixtureServer
let tokenServer: Server
let tokenRequests = 0
let gateway: ReturnType<typeof createGateway>

beforeAll(async () => {
  upstream = await startFixtureServer('docs', 'oauth-access-token-1234')
  tokenServer = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      tokenRequests++
      const expected = `Basic ${Buffer.from('gw-client:oauth-client-secret-5678').toString('base64')}`
      if (
        req.headers.authorization !== expected ||
        !body.includes('grant_type=client_credentials')
      ) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}')
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          access_token: 'oauth-access-token-1234',
          token_type: 'Bearer',
          expires_in: 3600,
        }),
      )
    })
  })
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve))
  const tokenUrl = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}/token`
  gateway = createGateway({
    mcp: {
      servers: [
        {
          id: 'docs',
          url: upstream.url,
          oauth: { tokenUrl, clientId: 'gw-client', clientSecret: 'oauth-client-secret-5678' },
        },
        {
          id: 'wrong',
          url: upstream.url,
          headers: { authorization: 'Bearer static-wrong-secret-9999' },
        },
      ],
    },
    groups: [
      { id: 'demo', protocol: 'openai', models: ['demo'], upstreams: [{ provider: 'mock' }] },
    ],
    keys: [{ key, id: 'k', mcp: { servers: ['*'] } }],
  })
})

afterAll(async () => {
  await gateway.close()
  await upstream.close()
  await new Promise((resolve) => tokenServer.close(resolve))
})

it('gets one client-credentials token for a burst of calls, and scrubs server credentials from errors', async () => {
  const client = new Client({ name: 'oauth', version: '1' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://127.0.0.1:1/mcp'), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: async (input, init) => gateway(new Request(input, init)),
    }),
  )
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      client.callTool({ name: 'docs__echo', arguments: { text: `${i}` } }),
    ),
  )
  expect(results.map((r) => r.content)).toEqual(
    Array.from({ length: 5 }, (_, i) => [{ type: 'text', text: `docs:${i}` }]),
  )
  expect(tokenRequests).toBe(1)
  expect(upstream.authorizations.every((a) => a === 'Bearer oauth-access-token-1234')).toBe(true)
  // The server echoes the refused credential in its 401 body: the client never sees it.
  const error = await client.callTool({ name: 'wrong__echo', arguments: { text: 'x' } }).then(
    () => undefined,
    (e: Error) => e,
  )
  expect(error?.message).toMatch(/Unknown tool|failed/)
  const tools = (await client.listTools()).tools.map((t) => t.name)
  expect(tools.some((name) => name.startsWith('wrong__'))).toBe(false)
  const raw = await gateway(
    new Request('http://127.0.0.1:1/mcp/wrong', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'r', version: '1' },
        },
      }),
    }),
  )
  const session = raw.headers.get('mcp-session-id')!
  const call = await gateway(
    new Request('http://127.0.0.1:1/mcp/wrong', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'mcp-session-id': session,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'x' } },
      }),
    }),
  )
  const body = await call.text()
  expect(body).toContain('answered HTTP 401')
  expect(body).not.toContain('static-wrong-secret-9999')
  await client.close()
})
