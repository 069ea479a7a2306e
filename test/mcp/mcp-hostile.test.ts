import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway } from '../../src/index'
import { startFixtureServer, type FixtureServer } from '../helpers/mcp-servers'

/**
 * Hostile input the fuzzing does not reach by chance: nesting past the bound, oversize client
 * capabilities, and a client's "answer" that names a server its key may not use.
 */
const key = 'sk-test-mcp-hostile-0123456789abcdefAB'
const url = 'http://127.0.0.1:1/mcp'
let alpha: FixtureServer
let beta: FixtureServer
let gateway: ReturnType<typeof createGateway>

beforeAll(async () => {
  alpha = await startFixtureServer('alpha', 'alpha-upstream-token')
  beta = await startFixtureServer('beta', 'beta-upstream-token')
  gateway = createGateway({
    mcp: {
      servers: [
        { id: 'alpha', url: alpha.url, headers: { authorization: 'Bearer alpha-upstream-token' } },
        { id: 'beta', url: beta.url, headers: { authorization: 'Bearer beta-upstream-token' } },
      ],
    },
    keys: [{ key, id: 'alpha-only', mcp: { servers: ['alpha'] } }],
  })
})

afterAll(async () => {
  await gateway.close()
  await alpha.close()
  await beta.close()
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

function initialize(capabilities: unknown) {
  return post(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities,
        clientInfo: { name: 'h', version: '1' },
      },
    }),
  )
}

describe('MCP endpoint under hostile input', () => {
  it('refuses nesting past 128 levels with a 400, not a 500', async () => {
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)
    const answer = await post(
      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":${deep}}}`,
    )
    expect(answer.status).toBe(400)
    const body = (await answer.json()) as { error?: { code?: number } }
    expect(body.error?.code).toBeLessThan(0)
  })

  it('refuses capabilities and client info over 16 KiB', async () => {
    const answer = await initialize({ experimental: { blob: 'x'.repeat(20_000) } })
    expect(answer.status).toBe(400)
    expect(await answer.text()).toMatch(/16384 bytes/)
  })

  it("never sends a client's answer to a server its key may not use", async () => {
    const opened = await initialize({})
    expect(opened.status).toBe(200)
    const session = opened.headers.get('mcp-session-id')!
    const before = beta.authorizations.length
    const answer = await post(JSON.stringify({ jsonrpc: '2.0', id: 'beta:1', result: {} }), {
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    })
    expect(answer.status).toBe(400)
    // Give a wrongly sent message time to arrive: beta saw nothing.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(beta.authorizations.length).toBe(before)
  })
})
