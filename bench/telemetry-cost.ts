/**
 * `npm run bench:telemetry`: what `telemetry` costs a request, in process (no sockets), against
 * the same gateway without it. Three gateways over one canned OpenAI upstream (a JSON answer and a
 * 17-event stream with usage), called in interleaved rounds:
 * - `off`: no `telemetry` (the OpenTelemetry API is never imported);
 * - `no-op`: `telemetry: true` with no SDK registered (the API's no-op providers);
 * - `sdk`: the SDK's providers passed in — sdk-trace-base 2.x with a `BatchSpanProcessor` and an
 *   exporter that drops spans, sdk-metrics 2.x with a reader that is never collected — so every
 *   span and measure is made and recorded, as in production minus the export.
 * Each subject runs in a process of its own (a shared heap would charge one subject's garbage to
 * the others), warmed up, then measured over `--requests` (3,000) calls; the processes alternate
 * over `--rounds` (5) rounds. Reports the median CPU µs per request of each. In-process figures
 * keep improving as V8 tiers up: compare the columns of one run, not runs. `--dist` measures the
 * built package (`dist/index.js`, run `npx tsup` first) instead of the sources through tsx.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'
import type { GatewayConfig, GatewayHandler } from '../src/index'
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
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '3000' },
    child: { type: 'string' },
    dist: { type: 'boolean', default: false },
    stream: { type: 'boolean', default: false },
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

const { createGateway } = (
  flags.dist ? await import('../dist/index.js') : await import('../src/index')
) as typeof import('../src/index')

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

/** One subject, in this process: prints its CPU µs per request. */
async function measureChild(mode: string, stream: boolean): Promise<void> {
  let shutdown = async () => undefined as unknown
  let telemetry: GatewayConfig['telemetry']
  if (mode === 'no-op') telemetry = true
  if (mode === 'sdk') {
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [
        new BatchSpanProcessor({
          export: (_spans, done) => done({ code: 0 }),
          shutdown: async () => undefined,
        }),
      ],
    })
    telemetry = {
      tracerProvider,
      meterProvider: new MeterProvider({ readers: [new IdleReader()] }),
    }
    shutdown = () => tracerProvider.shutdown()
  }
  const gateway = gatewayWith(telemetry)
  for (let index = 0; index < 2000; index += 1) await call(gateway, stream)
  const cpu = process.cpuUsage()
  for (let index = 0; index < requests; index += 1) await call(gateway, stream)
  const used = process.cpuUsage(cpu)
  await shutdown()
  console.log(((used.user + used.system) / requests).toFixed(2))
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

if (flags.child !== undefined) {
  await measureChild(flags.child, flags.stream)
} else {
  const self = fileURLToPath(import.meta.url)
  const results = new Map<string, number[]>()
  for (let round = 0; round < rounds; round += 1) {
    for (const stream of [false, true]) {
      for (const mode of ['off', 'no-op', 'sdk']) {
        const args = ['--import', 'tsx', self, '--child', mode, '--requests', String(requests)]
        if (flags.dist) args.push('--dist')
        const output = execFileSync(process.execPath, stream ? [...args, '--stream'] : args, {
          encoding: 'utf8',
        })
        const key = `${stream ? 'stream' : 'json'} · ${mode}`
        results.set(key, [...(results.get(key) ?? []), Number(output.trim())])
      }
    }
  }
  console.log(
    `telemetry cost (${flags.dist ? 'dist' : 'src'}), in process: median CPU µs per request, ${rounds} processes of ${requests} calls each`,
  )
  for (const [key, values] of results) {
    const rows = values.map((value) => value.toFixed(0)).join(' ')
    console.log(`${key.padEnd(16)} ${median(values).toFixed(1).padStart(8)}   (runs: ${rows})`)
  }
}
