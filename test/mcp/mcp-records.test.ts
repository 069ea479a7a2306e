import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { SpanKind } from '@opentelemetry/api'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createGateway, createMemoryUsageMeter, type RequestEvent } from '../../src/index'
import { formatRequestLog } from '../../src/node/cli/request-log'
import { createPostgresLedger, migrate } from '../../src/postgres/index'
import { startFixtureServer, type FixtureServer } from '../helpers/mcp-servers'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { otelHarness } from '../observability/otel-harness'

const key = 'sk-test-mcp-records-0123456789abcdefAB'
const secret = 'hunter2-very-secret-argument-7f3a9c'
const schema = 'mcp_records'

let database: TestDatabase
let upstream: FixtureServer
let gateway: ReturnType<typeof createGateway>
let ledger: ReturnType<typeof createPostgresLedger>
const otel = otelHarness()
const events: RequestEvent[] = []
const printed: string[] = []

beforeAll(async () => {
  database = await createTestDatabase('mcp_records')
  await migrate({ client: database.pool, schema })
  ledger = createPostgresLedger({ client: database.pool, schema, flushIntervalMs: 20 })
  upstream = await startFixtureServer('alpha')
  gateway = createGateway({
    mcp: { servers: [{ id: 'alpha', url: upstream.url }], callTimeoutMs: 3000 },
    keys: [{ key, id: 'records', mcp: { servers: ['*'] } }],
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
  await database.drop()
})

async function connect() {
  const client = new Client({ name: 'records-client', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:1/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
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
        expect(row.status).toBeGreaterThan(0)
      }
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
})
