import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import fc from 'fast-check'
import parse, { type ParsedFamily } from 'parse-prometheus-text-format'
import { describe, expect, it } from 'vitest'
import {
  createGateway,
  createMemoryUsageMeter,
  createMetricsRoute,
  createPrometheusMetrics,
  type RequestEvent,
  type UsageRecord,
} from '../../src/index'
import {
  durationBuckets,
  timeToFirstTokenBuckets,
} from '../../src/observability/gen-ai-conventions'
import { createPrometheusRegistry } from '../../src/observability/prometheus/prometheus-registry'
import { baseUrlOf, failingUpstreams, type Cue } from '../helpers/failing-upstreams'
import { histogramSeries, readExposition } from './prometheus-format'
import { fetchThrough, gatewayUrl, keys } from '../helpers/gateway'

function setup(script: (host: string, call: number) => Cue = () => ({ kind: 'ok' })) {
  const metrics = createPrometheusMetrics()
  const openaiUpstreams = failingUpstreams('openai', script)
  const anthropicUpstreams = failingUpstreams('anthropic', () => ({ kind: 'ok' }))
  const records: UsageRecord[] = []
  const events: RequestEvent[] = []
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
    onEvent: (event) => {
      events.push(event)
      metrics.record(event)
    },
    fetch: async (input, init) =>
      new Request(input, init).url.includes('c.test')
        ? await anthropicUpstreams.fetch(input, init)
        : await openaiUpstreams.fetch(input, init),
    random: () => 0,
  })
  metrics.watch(gateway)
  const openai = new OpenAI({
    apiKey: keys.main,
    baseURL: `${gatewayUrl}/v1`,
    fetch: fetchThrough(gateway),
  })
  return { gateway, metrics, openai, records, events }
}

async function scrape(metrics: ReturnType<typeof createPrometheusMetrics>) {
  const response = await metrics.handler(new Request('http://gateway.test/metrics'))
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
  const text = await response.text()
  // Two readers: the parse-prometheus-text-format package (a port of the Python client's sample
  // parser) and a strict one of the format's grammar and histogram rules.
  const families = new Map(parse(text).map((family) => [family.name, family]))
  const strict = readExposition(text)
  return { text, families, strict }
}

function family(families: Map<string, ParsedFamily>, name: string): ParsedFamily {
  const found = families.get(name)
  if (found === undefined) throw new Error(`no ${name} in ${[...families.keys()].join(', ')}`)
  return found
}

describe('Prometheus metrics from the gateway’s events and health()', () => {
  it('JSON, stream and translated calls parse with a standard parser: names, buckets, values', async () => {
    const { metrics, openai, records, events, gateway } = setup()
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
    const anthropic = new Anthropic({
      apiKey: keys.main,
      baseURL: gatewayUrl,
      fetch: fetchThrough(gateway),
    })
    await openai.chat.completions.create({ model: 'claude-sonnet-4-5-20250929', messages })
    await anthropic.messages.create({
      model: 'gpt-4o-mini',
      max_tokens: 64,
      messages,
    })
    expect(records).toHaveLength(4)
    const { families, strict, text } = await scrape(metrics)

    const requests = family(families, 'model_gateway_requests_total')
    expect(requests.type).toBe('COUNTER')
    expect(requests.metrics.reduce((sum, metric) => sum + Number(metric.value), 0)).toBe(4)
    const onRoute = (route: string) =>
      requests.metrics
        .filter((metric) => metric.labels!['model_gateway_route'] === route)
        .reduce((sum, metric) => sum + Number(metric.value), 0)
    expect(onRoute('chat.completions')).toBe(3)
    expect(onRoute('messages')).toBe(1)

    const durationName = 'gen_ai_server_request_duration_seconds'
    expect(strict.get(durationName)!.type).toBe('histogram')
    const duration = histogramSeries(strict.get(durationName)!, durationName)
    for (const series of duration) expect(series.bounds).toEqual(durationBuckets)
    expect(duration.reduce((sum, series) => sum + series.count, 0)).toBe(4)
    const seconds = duration.reduce((sum, series) => sum + series.sum, 0)
    expect(seconds).toBeCloseTo(
      events.reduce((sum, event) => sum + event.durationMs / 1000, 0),
      6,
    )

    const ttftName = 'gen_ai_server_time_to_first_token_seconds'
    const ttft = histogramSeries(strict.get(ttftName)!, ttftName)
    expect(ttft).toHaveLength(1)
    expect(ttft[0]!.bounds).toEqual(timeToFirstTokenBuckets)
    expect(ttft[0]!.count).toBe(1)
    const stream = events.find((event) => event.stream === true)!
    expect(ttft[0]!.sum).toBeCloseTo(stream.timeToFirstChunkMs! / 1000, 6)

    // Tokens by type: the records' sums, reported (not estimated).
    const tokens = family(families, 'model_gateway_usage_tokens_total')
    const ofType = (type: string) =>
      tokens.metrics
        .filter((metric) => metric.labels!['model_gateway_token_type'] === type)
        .reduce((sum, metric) => sum + Number(metric.value), 0)
    expect(ofType('input')).toBe(
      records.reduce((sum, record) => sum + record.usage!.inputTokens, 0),
    )
    expect(ofType('output')).toBe(
      records.reduce((sum, record) => sum + record.usage!.outputTokens, 0),
    )
    for (const metric of tokens.metrics) {
      expect(metric.labels!['model_gateway_estimated']).toBe('false')
    }

    // The circuit gauges, read from health() at the scrape.
    const circuits = family(families, 'model_gateway_circuit_state')
    expect(circuits.type).toBe('GAUGE')
    expect(
      circuits.metrics.map((metric) => metric.labels!['model_gateway_upstream']).sort(),
    ).toEqual(['a', 'b', 'c'])
    for (const metric of circuits.metrics) expect(metric.value).toBe('0')

    // No key, key id or request id in any label.
    expect(text).not.toContain(keys.main.slice(-4))
    for (const record of records) {
      expect(text).not.toContain(record.requestId)
      expect(text).not.toContain(record.keyId)
    }
  })

  it('a failover counts the failed attempt, the retry, and no client model that was never routed', async () => {
    const { metrics, openai } = setup((host) =>
      host === 'a' ? { kind: 'status', status: 503 } : { kind: 'ok' },
    )
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi.' }],
    })
    await expect(
      openai.chat.completions.create({
        model: 'no-such-model-\u0000"x',
        messages: [{ role: 'user', content: 'Hi.' }],
      }),
    ).rejects.toThrow()
    const { families, text } = await scrape(metrics)
    const attempts = family(families, 'model_gateway_upstream_attempts_total')
    const byUpstream = new Map(
      attempts.metrics.map((metric) => [metric.labels!['model_gateway_upstream'], metric]),
    )
    expect(byUpstream.get('a')!.labels!['model_gateway_attempt_outcome']).toBe('failed')
    expect(byUpstream.get('b')!.labels!['model_gateway_attempt_outcome']).toBe('answered')
    const retries = family(families, 'model_gateway_retries_total')
    expect(retries.metrics).toEqual([
      { value: '1', labels: { model_gateway_group: 'g', model_gateway_result: 'succeeded' } },
    ])
    expect(text).not.toContain('no-such-model')
  })

  it('a refused request counts its limit and reason', async () => {
    const metrics = createPrometheusMetrics()
    const gateway = createGateway({
      groups: [
        {
          id: 'demo',
          protocol: 'openai',
          models: ['demo-echo'],
          upstreams: [{ provider: 'mock' }],
        },
      ],
      keys: [{ key: keys.main, limits: { requestsPerMinute: 1 } }],
      onEvent: metrics.record,
    })
    const openai = new OpenAI({
      apiKey: keys.main,
      baseURL: `${gatewayUrl}/v1`,
      fetch: fetchThrough(gateway),
      maxRetries: 0,
    })
    const messages = [{ role: 'user' as const, content: 'Hi.' }]
    await openai.chat.completions.create({ model: 'demo-echo', messages })
    await expect(openai.chat.completions.create({ model: 'demo-echo', messages })).rejects.toThrow()
    const { families } = await scrape(metrics)
    expect(family(families, 'model_gateway_limit_rejections_total').metrics).toEqual([
      {
        value: '1',
        labels: {
          model_gateway_limit: 'requestsPerMinute',
          model_gateway_limit_reason: 'rate_limited',
        },
      },
    ])
  })

  it('label values of any text round-trip through the parser (escaping)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (value) => {
        const registry = createPrometheusRegistry(10)
        registry.add('model_gateway.requests', 2, { 'model_gateway.route': value })
        const text = registry.render(new Map())
        const [parsed] = parse(text)
        expect(parsed!.metrics[0]!.labels).toEqual({ model_gateway_route: value })
        const strict = readExposition(text).get('model_gateway_requests_total')!
        expect(strict.samples[0]!.labels).toEqual({ model_gateway_route: value })
        expect(parsed!.metrics[0]!.value).toBe('2')
      }),
    )
  })

  it('past the series cap, measures go to one overflow series', () => {
    const registry = createPrometheusRegistry(3)
    for (let index = 0; index < 10; index += 1) {
      registry.add('model_gateway.requests', 1, { 'model_gateway.route': `r${index}` })
    }
    const [parsed] = parse(registry.render(new Map()))
    expect(parsed!.metrics).toHaveLength(4)
    expect(parsed!.metrics.at(-1)).toEqual({ value: '7', labels: { overflow: 'true' } })
  })

  it('the handler answers GET and HEAD only; the route requires its bearer token', async () => {
    const metrics = createPrometheusMetrics()
    const post = await metrics.handler(new Request('http://x/metrics', { method: 'POST' }))
    expect(post.status).toBe(405)
    const token = 'metrics-token-0123456789'
    const route = createMetricsRoute(metrics.handler, { token })
    expect(route.handles('/metrics')).toBe(true)
    expect(route.handles('/metrics/x')).toBe(false)
    const bare = await route(new Request('http://x/metrics'))
    expect(bare.status).toBe(401)
    expect(bare.headers.get('www-authenticate')).toContain('Bearer')
    const wrong = await route(
      new Request('http://x/metrics', { headers: { authorization: `Bearer ${token}x` } }),
    )
    expect(wrong.status).toBe(401)
    const right = await route(
      new Request('http://x/metrics', { headers: { authorization: `Bearer ${token}` } }),
    )
    expect(right.status).toBe(200)
  })
})
