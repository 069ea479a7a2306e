import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import {
  createGateway,
  createMemoryUsageMeter,
  type RequestEvent,
  type UsageRecord,
} from '../../src/index'
import {
  durationBuckets,
  timeToFirstTokenBuckets,
  tokenBuckets,
} from '../../src/observability/gen-ai-conventions'
import { baseUrlOf, failingUpstreams, type Cue } from '../helpers/failing-upstreams'
import { fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import { histogramPoints, otelHarness, sumPoints } from './otel-harness'

/** An OpenAI group `g` (two upstreams) and an Anthropic group `claude`, called by an OpenAI client. */
function setup(script: (host: string, call: number) => Cue = () => ({ kind: 'ok' })) {
  const otel = otelHarness()
  const openaiUpstreams = failingUpstreams('openai', script)
  const anthropicUpstreams = failingUpstreams('anthropic', () => ({ kind: 'ok' }))
  const records: UsageRecord[] = []
  const events: RequestEvent[] = []
  let clock = 1_000_000
  const gateway = createGateway({
    groups: [
      {
        id: 'g',
        protocol: 'openai',
        models: ['gpt-4o-mini'],
        upstreams: ['a', 'b'].map((host) => ({
          id: host,
          baseUrl: baseUrlOf('openai', host),
          apiKey: `sk-${host}-upstream-secret-000000`,
        })),
      },
      {
        id: 'claude',
        protocol: 'anthropic',
        models: ['claude-sonnet-4-5-20250929'],
        upstreams: [
          { id: 'c', baseUrl: baseUrlOf('anthropic', 'c'), apiKey: 'sk-c-upstream-secret-000000' },
        ],
      },
    ],
    keys: [{ key: keys.main }],
    usageMeter: createMemoryUsageMeter(),
    usageLedger: { record: (record) => void records.push(record) },
    onEvent: (event) => void events.push(event),
    fetch: async (input, init) => {
      const url = new Request(input, init).url
      return url.includes('c.test')
        ? await anthropicUpstreams.fetch(input, init)
        : await openaiUpstreams.fetch(input, init)
    },
    random: () => 0,
    // Every reading of the clock is 250 ms later: durations are exact.
    now: () => (clock += 250),
    telemetry: otel.telemetry,
  })
  const openai = new OpenAI({
    apiKey: keys.main,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(gateway),
  })
  return { otel, openai, records, events }
}

describe('OpenTelemetry metrics by the GenAI conventions', () => {
  it('JSON, stream and translated calls: names, units, bucket boundaries and values', async () => {
    const { otel, openai, records, events } = setup()
    const messages = [{ role: 'user' as const, content: 'Say hello.' }]
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages })
    for await (const _chunk of await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    })) {
      // read to the end
    }
    await openai.chat.completions.create({ model: 'claude-sonnet-4-5-20250929', messages })
    expect(records).toHaveLength(3)
    const metrics = await otel.metrics()

    const attempts = metrics.get('gen_ai.client.operation.duration')!
    expect(attempts.descriptor.unit).toBe('s')
    const attemptPoints = histogramPoints(attempts)
    for (const point of attemptPoints)
      expect(point.value.buckets.boundaries).toEqual(durationBuckets)
    expect(attemptPoints.reduce((sum, point) => sum + point.value.count, 0)).toBe(3)
    const byProvider = new Map(
      attemptPoints.map((point) => [point.attributes['gen_ai.provider.name'], point]),
    )
    expect([...byProvider.keys()].sort()).toEqual(['anthropic', 'openai'])

    // Tokens: the reported usage, by type, with the token buckets.
    const tokens = metrics.get('gen_ai.client.token.usage')!
    expect(tokens.descriptor.unit).toBe('{token}')
    const tokenPoints = histogramPoints(tokens)
    for (const point of tokenPoints) expect(point.value.buckets.boundaries).toEqual(tokenBuckets)
    const sumOf = (type: string) =>
      tokenPoints
        .filter((point) => point.attributes['gen_ai.token.type'] === type)
        .reduce((sum, point) => sum + point.value.sum!, 0)
    expect(sumOf('input')).toBe(records.reduce((sum, record) => sum + record.usage!.inputTokens, 0))
    expect(sumOf('output')).toBe(
      records.reduce((sum, record) => sum + record.usage!.outputTokens, 0),
    )

    // The request side: one duration per request; the stream's time to first token.
    const requests = histogramPoints(metrics.get('gen_ai.server.request.duration'))
    expect(requests.reduce((sum, point) => sum + point.value.count, 0)).toBe(3)
    const requestSeconds = requests.reduce((sum, point) => sum + point.value.sum!, 0)
    expect(requestSeconds).toBeCloseTo(
      events.reduce((sum, event) => sum + event.durationMs / 1000, 0),
      6,
    )
    const ttft = histogramPoints(metrics.get('gen_ai.server.time_to_first_token'))
    expect(ttft).toHaveLength(1)
    expect(ttft[0]!.value.buckets.boundaries).toEqual(timeToFirstTokenBuckets)
    const stream = events.find((event) => event.stream === true)!
    expect(ttft[0]!.value.sum).toBeCloseTo(stream.timeToFirstChunkMs! / 1000, 6)
    const tpot = histogramPoints(metrics.get('gen_ai.server.time_per_output_token'))
    expect(tpot[0]!.value.sum).toBeCloseTo(
      (stream.durationMs - stream.timeToFirstChunkMs!) / 1000 / (stream.usage!.outputTokens - 1),
      6,
    )

    const counted = sumPoints(metrics.get('model_gateway.requests'))
    expect(counted.reduce((sum, point) => sum + point.value, 0)).toBe(3)
    const inFlight = sumPoints(metrics.get('model_gateway.requests.in_flight'))
    expect(inFlight.reduce((sum, point) => sum + point.value, 0)).toBe(0)

    // No label holds a key, a key id or a request id.
    const labels = JSON.stringify([...metrics.values()].map((metric) => metric.dataPoints))
    expect(labels).not.toContain(keys.main.slice(-4))
    for (const record of records) {
      expect(labels).not.toContain(record.requestId)
      expect(labels).not.toContain(record.keyId)
    }
  })

  it('a failover counts the failed attempt, the retry and the circuit gauge', async () => {
    const { otel, openai } = setup((host) =>
      host === 'a' ? { kind: 'status', status: 503 } : { kind: 'ok' },
    )
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi.' }],
    })
    const metrics = await otel.metrics()
    const attempts = sumPoints(metrics.get('model_gateway.upstream.attempts'))
    const outcome = (upstream: string) =>
      attempts.find((point) => point.attributes['model_gateway.upstream'] === upstream)!
    expect(outcome('a').attributes['model_gateway.attempt.outcome']).toBe('failed')
    expect(outcome('b').attributes['model_gateway.attempt.outcome']).toBe('answered')
    const retries = sumPoints(metrics.get('model_gateway.retries'))
    expect(retries).toHaveLength(1)
    expect(retries[0]!.attributes['model_gateway.result']).toBe('succeeded')
    expect(retries[0]!.value).toBe(1)
    const failedDuration = histogramPoints(metrics.get('gen_ai.client.operation.duration')).find(
      (point) => point.attributes['model_gateway.upstream'] === 'a',
    )!
    expect(failedDuration.attributes['error.type']).toBeDefined()
    const circuits = metrics.get('model_gateway.circuit.state')!.dataPoints
    expect(circuits.map((point) => point.attributes['model_gateway.upstream']).sort()).toEqual([
      'a',
      'b',
      'c',
    ])
  })
})
