import { describe, expect, it } from 'vitest'
import {
  createGateway,
  createMemoryUsageMeter,
  type GatewayConfig,
  type RequestEvent,
  type UsageRecord,
} from '../../src/index'
import { baseUrlOf, failingUpstreams, type Cue } from '../helpers/failing-upstreams'
import { keys } from '../helpers/gateway'
import { upstreamUsage, type UpstreamKind } from '../helpers/upstream-usage'
import { callThrough, until, type ClientKind } from './client-calls'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'

// Failed attempts open circuits, each a warning line: captured and checked, not printed.
captureGatewayWarnings()

/** Each client protocol, passed through to an upstream group of its own family. */
const clients: Record<
  ClientKind,
  {
    upstream: UpstreamKind
    protocol: 'openai' | 'anthropic' | 'gemini'
    model: string
    statuses: number[]
  }
> = {
  chat: {
    upstream: 'openai',
    protocol: 'openai',
    model: 'gpt-4o-mini',
    statuses: [429, 500, 502, 503, 504],
  },
  messages: {
    upstream: 'anthropic',
    protocol: 'anthropic',
    model: 'claude-sonnet-4-6',
    statuses: [429, 500, 529],
  },
  gemini: {
    upstream: 'gemini',
    protocol: 'gemini',
    model: 'gemini-2.5-flash',
    statuses: [429, 500, 503, 504],
  },
  responses: {
    upstream: 'responses',
    protocol: 'openai',
    model: 'gpt-4o-mini',
    statuses: [429, 500, 502, 503],
  },
}

/** A group of two upstreams, `a` tried first, `b` next, each failing as `script` says. */
function setup(client: ClientKind, script: (host: string, call: number) => Cue) {
  const { upstream, protocol, model } = clients[client]
  const upstreams = failingUpstreams(upstream, script)
  const records: UsageRecord[] = []
  const events: RequestEvent[] = []
  const entry = (host: string) => ({
    id: host,
    baseUrl: baseUrlOf(upstream, host),
    apiKey: `sk-${host}-upstream-secret-000000`,
    ...(upstream === 'responses' ? { responses: true } : {}),
  })
  const config: GatewayConfig = {
    groups: [{ id: 'g', protocol, models: [model], upstreams: [entry('a'), entry('b')] }],
    keys: [{ key: keys.main }],
    usageMeter: createMemoryUsageMeter(),
    usageLedger: { record: (record) => void records.push(record) },
    onEvent: (event) => void events.push(event),
    fetch: upstreams.fetch,
    // The first pick is the first upstream; then the one left.
    random: () => 0,
  }
  const gateway = createGateway(config)
  return { gateway, upstreams, records, events, model, kind: upstream }
}

type Row = {
  name: string
  /** What upstream `a` does on its first call (`b` answers). */
  cue: Cue
  streamOnly?: boolean
  jsonOnly?: boolean
  /** Calls to a and b. */
  calls: [number, number]
  /** The attempts the record lists: [upstream, status, phase, verdict]. */
  attempts: [string, number | undefined, string, string][]
  /** The client's status when it gets an error before any answer. */
  clientError?: number
  midStream?: boolean
}

function rows(client: ClientKind, stream: boolean): Row[] {
  const answered = (host: string): [string, number, string, string] => [
    host,
    200,
    stream ? 'stream' : 'first-byte',
    'ok',
  ]
  const table: Row[] = [
    {
      name: 'a connect error',
      cue: { kind: 'connect' },
      calls: [1, 1],
      attempts: [['a', undefined, 'connect', 'failed'], answered('b')],
    },
    ...clients[client].statuses.map((status): Row => ({
      name: `HTTP ${status} before the first byte`,
      cue: { kind: 'status', status },
      calls: [1, 1],
      attempts: [['a', status, 'headers', 'failed'], answered('b')],
    })),
    {
      name: 'HTTP 401 (the upstream key refused)',
      cue: { kind: 'status', status: 401 },
      calls: [1, 1],
      attempts: [['a', 401, 'headers', 'rejected-key'], answered('b')],
    },
    {
      name: 'HTTP 400 (the client’s own error)',
      cue: { kind: 'status', status: 400 },
      calls: [1, 0],
      attempts: [['a', 400, 'headers', 'neutral']],
      clientError: 400,
    },
    {
      name: 'an error event before the first byte',
      cue: { kind: 'error-event' },
      streamOnly: true,
      calls: [1, 1],
      attempts: [
        [
          'a',
          client === 'messages' ? 529 : client === 'chat' ? 502 : client === 'gemini' ? 503 : 500,
          'first-byte',
          'failed',
        ],
        answered('b'),
      ],
    },
    {
      name: 'a reset inside the JSON body (nothing reached the client)',
      cue: { kind: 'reset-after-first-byte' },
      jsonOnly: true,
      calls: [1, 1],
      attempts: [['a', 200, 'first-byte', 'failed'], answered('b')],
    },
    {
      name: 'a reset after the first byte reached the client',
      cue: { kind: 'reset-after-first-byte' },
      streamOnly: true,
      calls: [1, 0],
      attempts: [['a', 200, 'stream', 'ok']],
      midStream: true,
    },
  ]
  return table.filter((row) => !(stream ? row.jsonOnly : row.streamOnly))
}

describe.each(Object.keys(clients) as ClientKind[])('failover through the %s SDK', (client) => {
  describe.each([false, true])('stream %s', (stream) => {
    it.each(rows(client, stream).map((row) => [row.name, row] as const))('%s', async (_, row) => {
      const { gateway, upstreams, records, events, model, kind } = setup(client, (host) =>
        host === 'a' ? row.cue : { kind: 'ok' },
      )
      const result = await callThrough(client, gateway, model, stream)
      expect([upstreams.callsTo('a'), upstreams.callsTo('b')]).toEqual(row.calls)
      if (row.clientError !== undefined) {
        expect(result).toMatchObject({ kind: 'error', status: row.clientError })
      } else if (row.midStream === true) {
        expect(result.kind).toBe('mid-stream')
      } else {
        expect(result).toMatchObject({ kind: 'answer' })
        expect((result as { text: string }).text).not.toBe('')
      }
      await until(() => records.length > 0 && events.length > 0)
      expect(records).toHaveLength(1)
      const record = records[0]!
      const listed = record.attempts?.map((attempt) => [
        attempt.upstream,
        attempt.status,
        attempt.phase,
        attempt.verdict,
      ])
      expect(listed).toEqual(row.attempts)
      expect(events[0]?.attempts).toEqual(record.attempts)
      const last = row.attempts.at(-1)!
      expect(record.providerId).toBe(last[0])
      if (row.clientError === undefined && row.midStream !== true) {
        // Exactly what the upstream that answered reported; the failed attempt cost nothing.
        expect(record.outcome).toBe('ok')
        expect(record.usage).toEqual(upstreamUsage(kind, upstreams.answers[0]!))
        expect(record.estimated).toBe(false)
      } else {
        expect(record.outcome).toBe('error')
      }
    })
  })
})
