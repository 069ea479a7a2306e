import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { SpanKind } from '@opentelemetry/api'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createGateway, createMemoryUsageMeter, type RequestEvent } from '../../src/index'
import { toolCallStatus } from '../../src/mcp/call-records'
import { formatRequestLog } from '../../src/node/cli/request-log'
import { createPostgresLedger, migrate } from '../../src/postgres/index'
import { startFixtureServer, type FixtureServer } from '../helpers/mcp-servers'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { otelHarness } from '../observability/otel-harness'

const key = 'sk-test-mcp-records-0123456789abcdefAB'
const failingKey = 'sk-test-mcp-records-failing-0123456789CD'
const secret = 'hunter2-very-secret-argument-7f3a9c'
const schema = 'mcp_records'

let database: TestDatabase
let upstream: FixtureServer
let rpcFailing: Server
let unreachableUrl: string
let gateway: ReturnType<typeof createGateway>
let ledger: ReturnType<typeof createPostgresLedger>
const otel = otelHarness()
const events: RequestEvent[] = []
const printed: string[] = []

beforeAll(async () => {
  database = await createTestDatabase('mcp_records')
  await migrate({ client: database.pool, schema })
  ledger = createPostgresLedger({ client: database.pool, schema, flushIntervalMs: 20 })
  upstream = await startFixtureServer('alpha', undefined, (server) => {
    // A tool-level failure: the call works, the tool says it failed (MCP's `isError`).
    server.registerTool('fail', { description: 'Always fails' }, async () => ({
      isError: true,
      content: [{ type: 'text', text: 'the tool failed' }],
    }))
  })
  rpcFailing = await startRpcFailingServer()
  // A port that was listening and is closed: connections to it are refused.
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  unreachableUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/mcp`
  await new Promise<void>((resolve) => closed.close(() => resolve()))
  gateway = createGateway({
    mcp: {
      servers: [
        { id: 'alpha', url: upstream.url },
        {
          id: 'rpcfail',
          url: `http://127.0.0.1:${(rpcFailing.address() as AddressInfo).port}/mcp`,
        },
        { id: 'gone', url: unreachableUrl },
      ],
      callTimeoutMs: 3000,
    },
    keys: [
      { key, id: 'records', mcp: { servers: ['alpha'] } },
      { key: failingKey, id: 'failing', mcp: { servers: ['*'] } },
    ],
    groups: [
      { id: 'demo', protocol: 'openai', models: ['demo'], upstreams: [{ provider: 'mock' }] },
    ],
    usageMeter: createMemoryUsageMeter(),
    usageLedger: ledger,
    telemetry: otel.telemetry,
    // The CLI's log line, built from the event as the CLI builds it.
    onEvent: (event) => {
      events.push(event)
      printed.push(formatRequestLog(event))
    },
  })
})

afterAll(async () => {
  await gateway.close()
  await ledger.close()
  await upstream.close()
  await new Promise<void>((resolve) => rpcFailing.close(() => resolve()))
  await database.drop()
})

/**
 * A Streamable HTTP MCP server (JSON answers, sessions) whose tools fail at the protocol level:
 * `tools/call` of `internal` is a JSON-RPC `-32603` error, of anything else `-32602` (invalid
 * params, as the spec's unknown-tool answer), and `http500` gets an HTTP 500.
 */
async function startRpcFailingServer(): Promise<Server> {
  const sessionId = crypto.randomUUID()
  const server = createServer(async (req, res) => {
    let text = ''
    for await (const chunk of req) text += chunk
    if (req.method !== 'POST') return void res.writeHead(405).end()
    const message = JSON.parse(text) as { id?: number; method: string; params?: any }
    const reply = (body: unknown, headers: Record<string, string> = {}) =>
      res
        .writeHead(200, { 'content-type': 'application/json', ...headers })
        .end(JSON.stringify(body))
    if (message.method === 'initialize') {
      return reply(
        {
          jsonrpc: '2.0',
          id: message.id,
          result: {
            protocolVersion: message.params.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'rpcfail', version: '1' },
          },
        },
        { 'mcp-session-id': sessionId },
      )
    }
    if (req.headers['mcp-session-id'] !== sessionId) return void res.writeHead(400).end()
    if (message.id === undefined) return void res.writeHead(202).end()
    if (message.method === 'tools/list') {
      return reply({ jsonrpc: '2.0', id: message.id, result: { tools: [] } })
    }
    const name = message.params?.name
    if (name === 'http500') return void res.writeHead(500).end('upstream broke')
    const error =
      name === 'internal'
        ? { code: -32603, message: 'internal failure' }
        : { code: -32602, message: `Unknown tool: ${name}` }
    return reply({ jsonrpc: '2.0', id: message.id, error })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

async function connect(bearer = key) {
  const client = new Client({ name: 'records-client', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:1/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
    fetch: async (input, init) => gateway(new Request(input, init)),
  })
  await client.connect(transport)
  return client
}

describe('MCP tool call records', () => {
  it('writes one ledger row, one execute_tool span and one log line per call, without arguments or results', async () => {
    const logged = vi.spyOn(console, 'log')
    const errors = vi.spyOn(console, 'error')
    const warned = vi.spyOn(console, 'warn')
    try {
      const client = await connect()
      const ok = await client.callTool({ name: 'alpha__echo', arguments: { text: secret } })
      expect(ok.content).toEqual([{ type: 'text', text: `alpha:${secret}` }])
      // `die` never answers: the call times out (callTimeoutMs), a JSON-RPC error.
      await expect(
        client.callTool({ name: 'alpha__die', arguments: { text: secret } }),
      ).rejects.toThrow()
      await client.close()

      await vi.waitFor(
        async () => {
          await ledger.flush()
          const { rows } = await database.pool.query(
            `SELECT count(*)::int AS n FROM ${schema}.mg_usage_ledger`,
          )
          expect(rows[0].n).toBe(2)
        },
        { timeout: 10_000 },
      )
      const { rows } = await database.pool.query(
        `SELECT * FROM ${schema}.mg_usage_ledger ORDER BY started_at, model`,
      )
      expect(
        rows.map((row) => [
          row.kind,
          row.key_id,
          row.provider_id,
          row.model,
          row.upstream_model,
          row.outcome,
        ]),
      ).toEqual([
        ['tool', 'records', 'alpha', 'alpha__echo', 'echo', 'ok'],
        ['tool', 'records', 'alpha', 'alpha__die', 'die', 'error'],
      ])
      for (const row of rows) {
        expect(row.route).toBe('mcp.tools.call')
        expect(Number(row.cost_nano)).toBe(0)
        expect(row.duration_ms).toBeGreaterThanOrEqual(0)
      }
      // The echo answered; the die call timed out (mcp.callTimeoutMs): 504.
      expect(rows.map((row) => row.status)).toEqual([200, 504])
      expect(Number(rows[1].duration_ms)).toBeGreaterThanOrEqual(2900)
      expect(JSON.stringify(rows)).not.toContain(secret)
      expect(JSON.stringify(rows)).not.toContain('alpha:')

      const spans = otel.spans().filter((span) => span.name.startsWith('execute_tool'))
      expect(spans.map((span) => span.name)).toEqual(['execute_tool echo', 'execute_tool die'])
      for (const span of spans) {
        expect(span.kind).toBe(SpanKind.INTERNAL)
        expect(span.attributes['gen_ai.operation.name']).toBe('execute_tool')
        expect(span.attributes['mcp.method.name']).toBe('tools/call')
        expect(span.attributes['model_gateway.mcp.server']).toBe('alpha')
        expect(typeof span.attributes['gen_ai.tool.call.id']).toBe('string')
      }
      expect(spans.map((span) => span.attributes['gen_ai.tool.name'])).toEqual(['echo', 'die'])
      expect(spans[0]!.attributes['error.type']).toBeUndefined()
      expect(spans[1]!.attributes['error.type']).toBeDefined()
      expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain(secret)

      const calls = events.filter((event) => event.model?.startsWith('alpha__'))
      expect(calls).toHaveLength(2)
      const lines = calls.map(formatRequestLog)
      expect(lines[0]).toMatch(/ key=sk-…efAB /)
      for (const line of lines) {
        expect(line).not.toContain(key)
        expect(line).toMatch(/\d+ms/)
      }
      expect(lines[0]).toContain('model=alpha__echo')
      expect(lines[1]).toContain('model=alpha__die')
      const everything = [
        ...printed,
        ...[logged, errors, warned].flatMap((spy) =>
          spy.mock.calls.map((call) => call.map(String).join(' ')),
        ),
      ].join('\n')
      expect(everything).not.toContain(secret)
      expect(everything).not.toContain(key)
    } finally {
      logged.mockRestore()
      errors.mockRestore()
      warned.mockRestore()
    }
  })

  it('tells a tool-level failure (isError) apart from a failed call in the row, event, span and log line', async () => {
    const client = await connect(failingKey)
    const failed = await client.callTool({ name: 'alpha__fail', arguments: {} })
    expect(failed.isError).toBe(true)
    await expect(client.callTool({ name: 'rpcfail__internal', arguments: {} })).rejects.toThrow(
      /internal failure/,
    )
    await expect(client.callTool({ name: 'rpcfail__nope', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    )
    await expect(client.callTool({ name: 'rpcfail__http500', arguments: {} })).rejects.toThrow(
      /HTTP 500/,
    )
    await expect(client.callTool({ name: 'gone__echo', arguments: {} })).rejects.toThrow(
      /could not be reached/,
    )
    await client.close()

    const models = [
      'alpha__fail',
      'rpcfail__internal',
      'rpcfail__nope',
      'rpcfail__http500',
      'gone__echo',
    ]
    await vi.waitFor(
      async () => {
        await ledger.flush()
        const { rows } = await database.pool.query(
          `SELECT count(*)::int AS n FROM ${schema}.mg_usage_ledger WHERE key_id = 'failing'`,
        )
        expect(rows[0].n).toBe(models.length)
      },
      { timeout: 10_000 },
    )
    const { rows } = await database.pool.query(
      `SELECT model, outcome, status FROM ${schema}.mg_usage_ledger WHERE key_id = 'failing'`,
    )
    const byModel = new Map(rows.map((row) => [row.model, [row.outcome, row.status]]))
    expect(Object.fromEntries(byModel)).toEqual({
      // The call worked, the tool said it failed: 200, counted among the failures.
      alpha__fail: ['error', 200],
      // A JSON-RPC error from the server: its fault 502, the request's 400.
      rpcfail__internal: ['error', 502],
      rpcfail__nope: ['error', 400],
      // The server answered HTTP 500, or could not be reached.
      rpcfail__http500: ['error', 502],
      gone__echo: ['error', 502],
    })

    const calls = new Map(
      events
        .filter((event) => event.keyId === 'failing' && event.model !== undefined)
        .map((event) => [event.model!, event]),
    )
    expect([...calls.keys()].sort()).toEqual([...models].sort())
    // The client got HTTP 200 each time: JSON-RPC carries the failure in the body.
    for (const event of calls.values()) {
      expect(event.status).toBe(200)
      expect(event.outcome).toBe('error')
    }
    expect(calls.get('alpha__fail')!.error?.code).toBe('tool_error')
    expect(calls.get('rpcfail__internal')!.error).toEqual({
      code: '-32603',
      message: 'internal failure',
    })
    expect(calls.get('rpcfail__nope')!.error?.code).toBe('-32602')
    expect(calls.get('rpcfail__http500')!.error?.code).toBe('-32003')
    expect(calls.get('gone__echo')!.error?.code).toBe('-32003')
    expect(formatRequestLog(calls.get('alpha__fail')!)).toMatch(
      / error \d+ms error="The tool reported an error \(isError\)\."/,
    )
    expect(formatRequestLog(calls.get('rpcfail__internal')!)).toMatch(
      / error \d+ms error="internal failure"/,
    )

    const spans = new Map(
      otel
        .spans()
        .filter((span) => span.name.startsWith('execute_tool'))
        .map((span) => [
          `${String(span.attributes['model_gateway.mcp.server'])}__${String(span.attributes['gen_ai.tool.name'])}`,
          span,
        ]),
    )
    expect(spans.get('alpha__fail')!.attributes['error.type']).toBe('tool_error')
    expect(spans.get('rpcfail__internal')!.attributes['error.type']).toBe('-32603')
    expect(spans.get('gone__echo')!.attributes['error.type']).toBe('-32003')
  })

  it('maps how a call ended to its ledger status', () => {
    expect(toolCallStatus({ outcome: 'ok' })).toBe(200)
    expect(toolCallStatus({ outcome: 'tool_error' })).toBe(200)
    expect(
      toolCallStatus({ outcome: 'aborted', error: { code: -32001, message: 'cancelled' } }),
    ).toBe(499)
    expect(toolCallStatus({ outcome: 'error', error: { code: -32001, message: 'slow' } })).toBe(504)
    expect(toolCallStatus({ outcome: 'error', error: { code: -32601, message: 'no' } })).toBe(400)
    expect(toolCallStatus({ outcome: 'error', error: { code: -32003, message: 'gone' } })).toBe(502)
    expect(toolCallStatus({ outcome: 'error', error: { code: 42, message: 'custom' } })).toBe(502)
  })
})
