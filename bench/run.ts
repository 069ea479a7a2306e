/**
 * `npm run bench`: how much the gateway adds to a relay, on loopback.
 *
 * A zero-latency mock OpenAI upstream, a bare `node:http` relay and the gateway (once per upstream
 * transport) each run in their own process; autocannon loads each of them with the same JSON and
 * SSE chat requests, first at fixed concurrency, then with one connection (latency with no
 * queueing). It prints the tables, writes bench/results/latest.json and exits.
 *
 * The `canned` transport answers in process, with no upstream socket: the gateway's cost with it is
 * its core plus the Node bridge, and each real transport's cost is what it adds on top.
 *
 * Flags: --duration <s> (8) --warmup <s> (2) --connections <n> (32) --unloaded <s> (2, 0 skips)
 * --transports fetch,node-fetch,undici-request,canned (also undici-fetch) --rounds <n> (1: more
 * rounds go round-robin over the targets and report medians) --no-breakdown
 * --quick (4 s cases, 1 s warm-ups, global fetch and createNodeFetch only)
 * --profile (CPU profiles of the gateway processes in bench/results/profiles/)
 * --redis <url> (redis://127.0.0.1:6379: the usage meter's latency with Redis) --no-meter
 * --meter-only (only the usage meter's latency, in process: about 20 s)
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { availableParallelism, cpus, totalmem } from 'node:os'
import { parseArgs } from 'node:util'
import {
  formats,
  loadOptions,
  measureCase,
  medianCase,
  verify,
  type CaseResult,
  type Subject,
} from './cases'
import { startTarget, type Target } from './child'
import { measureCosts, type Cost } from './cost-breakdown'
import { measureMeterLatency, type MeterLatency } from './meter-latency'
import { runLoad } from './load'
import { cpuSplit, fixed, formatTable, loadTable } from './report'
import { transportLabels, type TransportName } from './transports'

const allTransports: TransportName[] = [
  'fetch',
  'node-fetch',
  'undici-request',
  'undici-fetch',
  'canned',
]
/** undici's npm fetch is left out by default: the same machinery as the global one, as slow. */
const defaultTransports: TransportName[] = ['fetch', 'node-fetch', 'undici-request', 'canned']
const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    unloaded: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '1' },
    transports: { type: 'string', default: defaultTransports.join(',') },
    quick: { type: 'boolean', default: false },
    'no-breakdown': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
    'no-meter': { type: 'boolean', default: false },
    'meter-only': { type: 'boolean', default: false },
  },
})
const durationS = flags.quick ? 4 : Number(flags.duration)
const warmupS = flags.quick ? 1 : Number(flags.warmup)
const unloadedS = flags.quick ? 2 : Number(flags.unloaded)
const connections = Number(flags.connections)
const rounds = Math.max(1, Math.floor(Number(flags.rounds)))
const transports = (flags.quick ? 'fetch,node-fetch' : flags.transports)
  .split(',')
  .map((name) => name.trim()) as TransportName[]
for (const name of transports) {
  if (!allTransports.includes(name)) throw new Error(`Unknown transport ${name}`)
}

const targets = 2 + transports.length
const plannedS =
  rounds * targets * formats.length * (warmupS + durationS) +
  (targets - 1) * formats.length * unloadedS +
  (flags['no-breakdown'] ? 0 : 6) +
  (flags['no-meter'] ? 0 : 30)
const resultsDir = new URL('./results/', import.meta.url)
const benchStartedAt = performance.now()

/** A progress line on stderr, with the seconds elapsed, so the tables on stdout stay clean. */
function progress(what: string): void {
  const seconds = ((performance.now() - benchStartedAt) / 1000).toFixed(0).padStart(3)
  process.stderr.write(`  [${seconds} s] ${what}\n`)
}
const running = new Set<Target>()

/** The usage meter's latency, memory and Redis; `undefined` (with a line saying why) without Redis. */
async function meterSection(): Promise<MeterLatency[] | undefined> {
  progress(`usage meter latency, in process, Redis at ${flags.redis}`)
  try {
    return await measureMeterLatency(flags.redis)
  } catch (error) {
    console.log(
      `\nUsage meter: not measured (${(error as Error).message}); start Redis or pass --redis <url>.`,
    )
    return undefined
  }
}

function printMeter(latencies: readonly MeterLatency[]): void {
  console.log('\nUsage meter, in process (Redis on loopback), every limit set on the key')
  console.log(
    formatTable(
      ['meter', 'operation', 'callers', 'p50 µs', 'p99 µs', 'mean µs', 'ops/s'],
      latencies.map((row) => [
        row.meter,
        row.operation,
        String(row.concurrency),
        fixed(row.p50, 0),
        fixed(row.p99, 0),
        fixed(row.mean, 0),
        fixed(row.perSecond, 0),
      ]),
    ),
  )
}

async function main(): Promise<void> {
  const cpu = cpus()[0]?.model ?? 'unknown CPU'
  const machine = `Node ${process.version}, ${availableParallelism()} CPUs (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB, ${process.platform}/${process.arch}`
  console.log(`model-gateway bench: ${machine}`)
  if (flags['meter-only']) {
    const meter = await meterSection()
    if (meter !== undefined) printMeter(meter)
    await mkdir(resultsDir, { recursive: true })
    const report = { date: new Date().toISOString(), machine, meter }
    await writeFile(new URL('meter.json', resultsDir), `${JSON.stringify(report, null, 2)}\n`)
    console.log('Results written to bench/results/meter.json')
    return
  }
  console.log(
    `autocannon, ${connections} connections, ${warmupS} s warm-up + ${durationS} s per case${rounds > 1 ? `, median of ${rounds} rounds` : ''}; about ${Math.ceil(plannedS)} s in all.`,
  )
  console.log(
    `The load generator, the mock upstream and the target are 3 processes sharing these ${availableParallelism()} cores: compare rows, not absolute figures.\n`,
  )

  const mock = await start(['mock'])
  // Every target starts before any load (tsx compiles each in a few seconds); idle, they cost
  // nothing to the case being measured.
  const profile = flags.profile
    ? ['--cpu-prof', `--cpu-prof-dir=${new URL('profiles/', resultsDir).pathname}`]
    : []
  const [relay, ...gateways] = await Promise.all([
    start(['relay', mock.url]),
    ...transports.map((transport) => start(['gateway', mock.url, transport], profile)),
  ])
  const subjects: Subject[] = [
    { target: mock, name: 'mock upstream (direct)', kind: 'mock', transport: undefined },
    { target: relay!, name: 'bare node:http relay', kind: 'relay', transport: undefined },
    ...transports.map((transport, index) => ({
      target: gateways[index]!,
      name: `gateway, ${transportLabels[transport]}`,
      kind: 'gateway' as const,
      transport,
    })),
  ]
  for (const subject of subjects) {
    for (const format of formats) await verify(subject.target.url, format)
  }
  progress('targets listening and answering')

  // Rounds go round-robin over the targets, so a slow spell of a shared machine hits them all.
  const samples = new Map<string, CaseResult[]>()
  for (let round = 1; round <= rounds; round += 1) {
    for (const subject of subjects) {
      for (const format of formats) {
        const label = rounds > 1 ? ` · round ${round}/${rounds}` : ''
        progress(`${subject.name} · ${format} · ${connections} connections${label}`)
        await runLoad(loadOptions(subject.target, format, connections, warmupS))
        const result = await measureCase(subject, format, connections, durationS)
        const key = `${subject.name} · ${format}`
        samples.set(key, [...(samples.get(key) ?? []), result])
      }
    }
  }
  const loaded = [...samples.values()].map(medianCase)
  const unloaded: CaseResult[] = []
  if (unloadedS > 0) {
    for (const subject of subjects.filter((subject) => subject.kind !== 'mock')) {
      for (const format of formats) {
        progress(`${subject.name} · ${format} · 1 connection`)
        unloaded.push(await measureCase(subject, format, 1, unloadedS))
      }
    }
  }
  await stopAll()

  let costs: Cost[] = []
  if (!flags['no-breakdown']) {
    progress('per-request cost breakdown, in process')
    costs = await measureCosts()
  }
  const meter = flags['no-meter'] ? undefined : await meterSection()

  console.log(`\nLoaded: ${connections} connections, ${durationS} s per case`)
  console.log(loadTable(loaded, true))
  if (unloaded.length > 0) {
    console.log(
      `\nUnloaded: 1 connection, ${unloadedS} s per case (added latency without queueing)`,
    )
    console.log(loadTable(unloaded, false))
  }
  const split = cpuSplit(loaded, transports)
  if (split !== undefined) {
    console.log('\nCPU per request under load (target process), split by subtraction')
    console.log(split)
  }
  if (costs.length > 0) {
    console.log('\nPer-request cost in process, one request at a time, no sockets')
    console.log(
      formatTable(
        ['step', 'wall µs/op', 'CPU µs/op'],
        costs.map((cost) => [cost.step, fixed(cost.micros, 1), fixed(cost.cpuMicros, 1)]),
      ),
    )
  }
  if (meter !== undefined) printMeter(meter)
  console.log(
    '\nΔ columns: gateway minus bare relay, same format. CPU µs/req: CPU time of the target process alone (user + system) per completed request.',
  )

  await mkdir(resultsDir, { recursive: true })
  const report = {
    date: new Date().toISOString(),
    machine,
    settings: { connections, durationS, warmupS, unloadedS, rounds, transports },
    loaded,
    unloaded,
    costs,
    meter,
  }
  await writeFile(new URL('latest.json', resultsDir), `${JSON.stringify(report, null, 2)}\n`)
  console.log('Results written to bench/results/latest.json')
}

async function start(args: string[], execArgv: string[] = []): Promise<Target> {
  const target = await startTarget(args, execArgv)
  running.add(target)
  return target
}

async function stop(target: Target): Promise<void> {
  running.delete(target)
  await target.stop()
}

async function stopAll(): Promise<void> {
  await Promise.all([...running].map((target) => stop(target)))
}

// A hard bound on the whole run: a hung case must not keep the machine busy.
const deadline = setTimeout(
  () => {
    console.error(`bench: still running after ${Math.ceil(plannedS * 1.5 + 60)} s, giving up`)
    void stopAll().finally(() => process.exit(1))
  },
  (plannedS * 1.5 + 60) * 1000,
)
process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)))

main().then(
  async () => {
    clearTimeout(deadline)
    await stopAll()
  },
  async (error: unknown) => {
    console.error('bench failed:', error)
    clearTimeout(deadline)
    await stopAll()
    process.exit(1)
  },
)
