import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { startFixtureServer, type FixtureServer } from '../helpers/mcp-servers'

const key = 'sk-test-mcp-fuzz-0123456789abcdefABCDE'
const url = 'http://127.0.0.1:1/mcp'
let server: FixtureServer
let gateway: ReturnType<typeof createGateway>
let session: string

beforeAll(async () => {
  server = await startFixtureServer('alpha')
  gateway = createGateway({
    mcp: { servers: [{ id: 'alpha', url: server.url }], maxRequestBytes: 4096 },
    groups: [
      { id: 'demo', protocol: 'openai', models: ['demo'], upstreams: [{ provider: 'mock' }] },
    ],
    keys: [{ key, id: 'k', mcp: { servers: ['*'] } }],
  })
  const init = await post(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'f', version: '1' },
      },
    }),
  )
  session = init.headers.get('mcp-session-id')!
})

afterAll(async () => {
  await gateway.close()
  await server.close()
})

function post(body: string, headers: Record<string, string> = {}) {
  return gateway(
    new Request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body,
    }),
  )
}

/** Messages that look like JSON-RPC, with every field possibly wrong. */
const message = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.anything()),
    id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.anything()),
    method: fc.oneof(
      fc.constantFrom(
        'tools/call',
        'tools/list',
        'prompts/get',
        'resources/read',
        'ping',
        'initialize',
      ),
      fc.constantFrom(
        'notifications/cancelled',
        'notifications/initialized',
        'constructor',
        '__proto__',
      ),
      fc.string(),
      fc.anything(),
    ),
    params: fc.oneof(
      fc.record(
        {
          name: fc.oneof(fc.string(), fc.constantFrom('alpha__echo', 'alpha__', '__x', 'toString')),
          arguments: fc.anything(),
        },
        { requiredKeys: [] },
      ),
      fc.record({ uri: fc.oneof(fc.string(), fc.constant('mcp-gateway://alpha/x')) }),
      fc.anything(),
    ),
    result: fc.anything(),
    error: fc.anything(),
  },
  { requiredKeys: [] },
)

it('malformed JSON-RPC gets a 4xx with a JSON-RPC error or a JSON-RPC answer, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        message.map((m) => JSON.stringify(m)),
        fc.array(message).map((m) => JSON.stringify(m)),
        fc.string(),
        fc.string({ minLength: 5000, maxLength: 6000 }),
      ),
      fc.boolean(),
      async (body, withSession) => {
        const response = await post(body, withSession ? { 'mcp-session-id': session } : {})
        expect(response.status).toBeLessThan(500)
        const text = await response.text()
        if (response.status >= 400) {
          expect(JSON.parse(text)).toMatchObject({
            jsonrpc: '2.0',
            error: { code: expect.any(Number) },
          })
        }
      },
    ),
    { numRuns: 300 },
  )
}, 60_000)
