import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { describe, expect, it } from 'vitest'
import {
  createGateway,
  createMemoryUsageMeter,
  type RequestEvent,
  type UsageRecord,
} from '../../src/index'
import { baseUrlOf, failingUpstreams, type Cue } from '../helpers/failing-upstreams'
import { fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import { captureGatewayWarnings } from '../helpers/gateway-warnings'
import type { UpstreamKind } from '../helpers/upstream-usage'
import { otelHarness } from './otel-harness'

// A 429 with retry-after opens its model's circuit: the warning is captured and checked here.
const warnings = captureGatewayWarnings()

const clientTrace = '0af7651916cd43dd8448eb211c80319c'
const clientSpan = 'b7ad6b7169203331'
const clientTraceparent = `00-${clientTrace}-${clientSpan}-01`

/** A group of two upstreams of one family (`a` first, then `b`), with telemetry on. */
function setup(kind: UpstreamKind, model: string, script: (host: string, call: number) => Cue) {
  const otel = otelHarness()
  const upstreams = failingUpstreams(kind, script)
  const received: { host: string; traceparent: string | null }[] = []
  const records: UsageRecord[] = []
  const events: RequestEvent[] = []
  const protocol = kind === 'responses' ? 'openai' : kind
  const entry = (host: string) => ({
    id: host,
    baseUrl: baseUrlOf(kind, host),
    apiKey: `sk-${host}-upstream-secret-000000`,
    ...(kind === 'responses' ? { responses: true } : {}),
  })
  const gateway = createGateway({
    groups: [{ id: 'g', protocol, models: [model], upstreams: [entry('a'), entry('b')] }],
    keys: [{ key: keys.main }],
    usageMeter: createMemoryUsageMeter(),
    usageLedger: { record: (record) => void records.push(record) },
    onEvent: (event) => void events.push(event),
    fetch: async (input, init) => {
      const request = new Request(input, init)
      received.push({
        host: new URL(request.url).hostname.replace(/\.test$/, ''),
        traceparent: request.headers.get('traceparent'),
      })
      return await upstreams.fetch(request)
    },
    random: () => 0,
    telemetry: otel.telemetry,
  })
  return { gateway, otel, upstreams, received, records, events }
}

function tree(spans: readonly ReadableSpan[]) {
  const server = spans.filter((span) => span.kind === SpanKind.SERVER)
  expect(server).toHaveLength(1)
  const request = server[0]!
  const attempts = spans.filter(
    (span) =>
      span.kind === SpanKind.CLIENT &&
      span.parentSpanContext?.spanId === request.spanContext().spanId,
  )
  return { request, attempts }
}

/** Every attribute and event attribute of every span, as text. */
function everything(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(
    spans.map((span) => [span.name, span.attributes, span.events.map((event) => event.attributes)]),
  )
}

function expectNoSecrets(spans: readonly ReadableSpan[]) {
  const text = everything(spans)
  expect(text).not.toContain(keys.main)
  expect(text).not.toContain(keys.main.slice(8))
  expect(text).not.toContain('upstream-secret')
}

describe('OpenTelemetry spans through the official SDKs', () => {
  it('a failover from 503 to 200: one request span, two attempt spans, each upstream called under its own', async () => {
    const { gateway, otel, received, records, events } = setup('openai', 'gpt-4o-mini', (host) =>
      host === 'a' ? { kind: 'status', status: 503 } : { kind: 'ok' },
    )
    const openai = new OpenAI({
      apiKey: keys.main,
      baseURL: `${gatewayUrl}/v1`,
      fetch: fetchThrough(gateway),
      defaultHeaders: { traceparent: clientTraceparent },
    })
    const answer = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Say hello.' }],
    })
    expect(answer.choices[0]!.message.content).toBeTruthy()
    const { request, attempts } = tree(otel.spans())
    expect(attempts).toHaveLength(2)
    const [failed, answered] = attempts as [ReadableSpan, ReadableSpan]

    // The request span is the client's child, named by the operation and the call name.
    expect(request.spanContext().traceId).toBe(clientTrace)
    expect(request.parentSpanContext?.spanId).toBe(clientSpan)
    expect(request.name).toBe('chat gpt-4o-mini')
    expect(request.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'model_gateway.route': 'chat.completions',
      'model_gateway.group': 'g',
      'model_gateway.attempts': 2,
      'model_gateway.outcome': 'ok',
      'http.response.status_code': 200,
      'model_gateway.key_id': records[0]!.keyId,
    })
    expect(request.status.code).not.toBe(SpanStatusCode.ERROR)

    // The attempts: GenAI inference attributes, then the gateway's own.
    expect(failed.name).toBe('chat gpt-4o-mini')
    expect(failed.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'http.response.status_code': 503,
      'model_gateway.attempt.upstream': 'a',
      'model_gateway.attempt.phase': 'headers',
      'model_gateway.attempt.outcome': 'failed',
      'model_gateway.attempt.verdict': 'failed',
      'error.type': records[0]!.attempts![0]!.error,
    })
    expect(failed.status.code).toBe(SpanStatusCode.ERROR)
    expect(answered.attributes).toMatchObject({
      'model_gateway.attempt.upstream': 'b',
      'model_gateway.attempt.outcome': 'answered',
      'http.response.status_code': 200,
      'gen_ai.response.id': answer.id,
      'gen_ai.response.model': answer.model,
      'gen_ai.response.finish_reasons': [answer.choices[0]!.finish_reason],
    })
    expect(answered.attributes['error.type']).toBeUndefined()

    // Each upstream call carried its own attempt span's context, not the client's.
    expect(received.map((call) => call.host)).toEqual(['a', 'b'])
    expect(received[0]!.traceparent).toBe(`00-${clientTrace}-${failed.spanContext().spanId}-01`)
    expect(received[1]!.traceparent).toBe(`00-${clientTrace}-${answered.spanContext().spanId}-01`)

    // The usage attributes equal the usage record's; the event joins the trace.
    const usage = records[0]!.usage!
    for (const span of [answered, request]) {
      expect(span.attributes['gen_ai.usage.input_tokens']).toBe(usage.inputTokens)
      expect(span.attributes['gen_ai.usage.output_tokens']).toBe(usage.outputTokens)
    }
    expect(events[0]!.traceId).toBe(clientTrace)
    expect(events[0]!.spanId).toBe(request.spanContext().spanId)
    expectNoSecrets(otel.spans())
  })

  it('a stream cut after its first event ends both spans, the attempt with finish reason error', async () => {
    const { gateway, otel, records } = setup('anthropic', 'claude-sonnet-4-6', () => ({
      kind: 'reset-after-first-byte',
    }))
    const anthropic = new Anthropic({
      apiKey: keys.main,
      baseURL: gatewayUrl,
      fetch: fetchThrough(gateway),
    })
    const stream = await anthropic.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Say hello.' }],
      stream: true,
    })
    await expect(async () => {
      for await (const _event of stream) {
        // read to the cut
      }
    }).rejects.toThrow()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const { request, attempts } = tree(otel.spans())
    expect(attempts).toHaveLength(1)
    const attempt = attempts[0]!
    const reasons = attempt.attributes['gen_ai.response.finish_reasons'] as string[]
    expect(reasons.at(-1)).toBe('error')
    expect(attempt.attributes['gen_ai.request.stream']).toBe(true)
    expect(attempt.attributes['gen_ai.provider.name']).toBe('anthropic')
    expect(attempt.attributes['gen_ai.response.time_to_first_chunk']).toBeTypeOf('number')
    expect(attempt.status.code).toBe(SpanStatusCode.ERROR)
    expect(request.attributes['model_gateway.outcome']).toBe('error')
    expect(request.status.code).toBe(SpanStatusCode.ERROR)
    expect(records[0]!.outcome).toBe('error')
    // Ended in order, the attempt first: the exporter receives each span as it ends.
    const ended = otel.spans()
    expect(ended.indexOf(attempt)).toBeLessThan(ended.indexOf(request))
    expectNoSecrets(otel.spans())
  })

  it('a whole Gemini stream: finish reason, response id, usage equal to the record', async () => {
    const { gateway, otel, records } = setup('gemini', 'gemini-2.5-flash', () => ({ kind: 'ok' }))
    const genai = new GoogleGenAI({
      apiKey: keys.main,
      httpOptions: { baseUrl: gatewayUrl, fetch: fetchThrough(gateway) },
    })
    let text = ''
    for await (const chunk of await genai.models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: 'Say hello.',
    })) {
      text += chunk.text ?? ''
    }
    expect(text).not.toBe('')
    const { request, attempts } = tree(otel.spans())
    expect(request.name).toBe('generate_content gemini-2.5-flash')
    const attempt = attempts[0]!
    expect(attempt.attributes['gen_ai.provider.name']).toBe('gcp.gemini')
    expect(attempt.attributes['gen_ai.operation.name']).toBe('generate_content')
    expect(attempt.attributes['gen_ai.response.finish_reasons']).toContain('STOP')
    const usage = records[0]!.usage!
    expect(attempt.attributes['gen_ai.usage.input_tokens']).toBe(usage.inputTokens)
    expect(attempt.attributes['gen_ai.usage.output_tokens']).toBe(usage.outputTokens)
    expect(request.attributes['gen_ai.usage.output_tokens']).toBe(usage.outputTokens)
    expectNoSecrets(otel.spans())
  })

  it('a translated call (OpenAI client, Anthropic upstream) names the upstream protocol on the attempt', async () => {
    const otel = otelHarness()
    const upstreams = failingUpstreams('anthropic', () => ({ kind: 'ok' }))
    const records: UsageRecord[] = []
    const gateway = createGateway({
      groups: [
        {
          id: 'claude',
          protocol: 'anthropic',
          models: ['claude-sonnet-4-5-20250929'],
          upstreams: [
            {
              id: 'a',
              baseUrl: baseUrlOf('anthropic', 'a'),
              apiKey: 'sk-a-upstream-secret-000000',
            },
          ],
        },
      ],
      keys: [{ key: keys.main }],
      usageLedger: { record: (record) => void records.push(record) },
      fetch: upstreams.fetch,
      telemetry: otel.telemetry,
    })
    const openai = new OpenAI({
      apiKey: keys.main,
      baseURL: `${gatewayUrl}/v1`,
      fetch: fetchThrough(gateway),
    })
    await openai.chat.completions.create({
      model: 'claude-sonnet-4-5-20250929',
      messages: [{ role: 'user', content: 'Say hello.' }],
    })
    const { request, attempts } = tree(otel.spans())
    expect(request.attributes['model_gateway.route']).toBe('chat.completions')
    expect(attempts[0]!.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'claude-sonnet-4-5-20250929',
      'gen_ai.usage.input_tokens': records[0]!.usage!.inputTokens,
    })
    expect(attempts[0]!.attributes['gen_ai.response.finish_reasons']).toEqual(['end_turn'])
    expectNoSecrets(otel.spans())
  })

  it('backoff waits are events on the request span', async () => {
    const { gateway, otel } = setup('openai', 'gpt-4o-mini', (host, call) =>
      host === 'a' && call === 1
        ? { kind: 'status', status: 429, headers: { 'retry-after': '0' } }
        : { kind: 'ok' },
    )
    const openai = new OpenAI({
      apiKey: keys.main,
      baseURL: `${gatewayUrl}/v1`,
      fetch: fetchThrough(gateway),
    })
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi.' }],
    })
    const { request, attempts } = tree(otel.spans())
    expect(attempts.length).toBeGreaterThanOrEqual(2)
    const backoffs = request.events.filter((event) => event.name === 'model_gateway.backoff')
    expect(backoffs).toHaveLength(attempts.length - 1)
    expect(backoffs[0]!.attributes!['model_gateway.backoff.wait_ms']).toBeTypeOf('number')
    expect(warnings.lines).toContainEqual(
      expect.stringContaining('upstream g/a, model "gpt-4o-mini": circuit open for'),
    )
  })

  it('telemetry: true without an SDK registered uses the no-op providers: nothing breaks, no ids', async () => {
    const upstreams = failingUpstreams('openai', () => ({ kind: 'ok' }))
    const events: RequestEvent[] = []
    const gateway = createGateway({
      groups: [
        {
          id: 'g',
          protocol: 'openai',
          models: ['gpt-4o-mini'],
          upstreams: [
            { id: 'a', baseUrl: baseUrlOf('openai', 'a'), apiKey: 'sk-a-upstream-secret-000000' },
          ],
        },
      ],
      keys: [{ key: keys.main }],
      onEvent: (event) => void events.push(event),
      fetch: upstreams.fetch,
      telemetry: true,
    })
    const openai = new OpenAI({
      apiKey: keys.main,
      baseURL: `${gatewayUrl}/v1`,
      fetch: fetchThrough(gateway),
    })
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi.' }],
    })
    expect(events[0]!.status).toBe(200)
    expect(events[0]!.traceId).toBeUndefined()
  })
})
