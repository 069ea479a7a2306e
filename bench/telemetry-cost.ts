/**
 * `npm run bench:telemetry`: what `telemetry` costs a request, in process (no sockets), against
 * the same gateway without it. Three gateways over one canned OpenAI upstream (a JSON answer and a
 * 17-event stream with usage), called in interleaved rounds:
 * - `off`: no `telemetry` (the OpenTelemetry API is never imported);
 * - `no-op`: `telemetry: true` with no SDK registered (the API's no-op providers);
 * - `sdk`: the SDK's providers passed in — sdk-trace-base 2.x with a `BatchSpanProcessor` and an
 *   exporter that drops spans, sdk-metrics 2.x with a reader that is never collected — so every
 *   span and measure is made and recorded, as in production minus the export.
 * Reports the median CPU µs per request of each, over `--rounds` (7) rounds of `--requests`
 * (2,000) calls. In-process figures keep improving as V8 tiers up: compare the columns of one run,
 * not runs.
 */
import { parseArgs } from 'node:util'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'
import { createGateway, type GatewayConfig, type GatewayHandler } from '../src/index'
import {
  benchKey,
  benchModel,
  completionJson,
  jsonRequestBody,
  streamFrames,
  streamRequestBody,
} from './payloads'

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    requests: { type: 'string', default: '2000' },
  },
})
const rounds = Number(flags.rounds)
const requests = Number(flags.requests)

class IdleReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const encoder = new TextEncoder()
const upstream: typeof fetch = async (_input, init) => {
  const stream = String(init?.body ?? '').includes('"stream":true')
  if (!stream)
    return new Response(completionJson, { headers: { 'content-type': 'application/json' } })
  const frames = streamFrames.withUsage.map((frame) => encoder.encode(frame))
  return new Response(
    new ReadableStream({
      start(controller) {
        for (const frame of frames) controller.enqueue(frame)
        controller.close()
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  )
}

function gatewayWith(telemetry: GatewayConfig['telemetry']): GatewayHandler {
  return createGateway({
    groups: [
      {
        id: 'bench',
        protocol: 'openai',
        models: [benchModel],
        upstreams: [
          { baseUrl: 'http://upstream.bench/v1', apiKey: 'sk-upstream-bench-0123456789' },
        ],
      },
    ],
    keys: [{ key: benchKey }],
    fetch: upstream,
    ...(telemetry === undefined ? {} : { telemetry }),
  })
}

const sdk = {
  tracerProvider: new BasicTracerProvider({
    spanProcessors: [
      new BatchSpanProcessor({
        export: (_spans, done) => done({ code: 0 }),
        shutdown: async () => undefined,
      }),
    ],
  }),
  meterProvider: new MeterProvider({ readers: [new IdleReader()] }),
}
const subjects: [string, GatewayHandler][] = [
  ['off', gatewayWith(undefined)],
  ['no-op', gatewayWith(true)],
  ['sdk', gatewayWith(sdk)],
]

async function call(gateway: GatewayHandler, stream: boolean): Promise<void> {
  const response = await gateway(
    new Request('http://gateway.bench/v1/chat/completions', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${benchKey}`,
        'content-type': 'application/json',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
      body: stream ? streamRequestBody : jsonRequestBody,
    }),
  )
  if (response.status !== 200)
    throw new Error(`status ${response.status}: ${await response.text()}`)
  await response.arrayBuffer()
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

const results = new Map<string, number[]>()
for (const stream of [false, true]) {
  for (const [, gateway] of subjects) {
    for (let index = 0; index < 300; index += 1) await call(gateway, stream)
  }
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, gateway] of subjects) {
      const cpu = process.cpuUsage()
      for (let index = 0; index < requests; index += 1) await call(gateway, stream)
      const used = process.cpuUsage(cpu)
      const key = `${stream ? 'stream' : 'json'} · ${name}`
      const list = results.get(key) ?? []
      list.push((used.user + used.system) / requests)
      results.set(key, list)
    }
  }
}
console.log(
  `telemetry cost, in process: median CPU µs per request over ${rounds} rounds of ${requests}`,
)
for (const [key, values] of results) {
  console.log(
    `${key.padEnd(16)} ${median(values).toFixed(1).padStart(8)}   (rounds: ${values.map((value) => value.toFixed(0)).join(' ')})`,
  )
}
await sdk.tracerProvider.shutdown()
