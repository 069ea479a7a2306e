/**
 * `npm run bench`: how far the gateway is from a bare relay, on loopback, in one run.
 *
 * A zero-latency mock upstream (OpenAI and Anthropic), a bare `node:http` relay and the gateway as
 * the CLI serves it (`serveGateway`, `createNodeFetch`) each run in their own process. It reports:
 * - req/s of passthrough JSON, passthrough SSE and translated SSE (Anthropic upstream, OpenAI
 *   client) as a fraction of the relay's, at `--connections` (32), the median of per-round ratios
 *   over `--rounds` (3) interleaved rounds (relay, then gateway, per format and round);
 * - CPU µs per request of each target process, and the promises it creates per request (counted
 *   in a short pass of its own after the rounds, since V8's promise hook costs CPU);
 * - the latency the gateway adds at one connection (p50, p99), and to an SSE answer's first byte;
 * - resident memory per open stream with `--streams` (5,000) streams held open;
 * - the import time of the core and its gzip size with its dependencies.
 *
 * Flags: --duration <s> (4) --warmup <s> (1) --connections <n> (32) --rounds <n> (3)
 * --unloaded <s> (3; 0 skips) --first-byte <n> (200; 0 skips) --streams <n> (5000; 0 skips)
 * --import-runs <n> (5) --src <dir> (../src: measure another checkout) --base [<label>=]<dir>
 * (repeatable: another checkout's src, main before a change, served beside it and interleaved in
 * the same rounds, so its figures are the "before" on the same machine at the same time)
 * --promise-seconds <s> (1; 0 skips counting promises) --formats <list> (json,sse,translated-sse) --node <path> (run the
 * relay, the gateway and the import with another Node binary) --quick (1 round, shorter cases,
 * 1,000 streams) --transports fetch,node-fetch,undici-request,undici-fetch,canned (more gateway
 * targets) --profile (CPU profiles of the gateway in bench/results/profiles/) --breakdown
 * (in-process costs of single steps) --meter [--redis <url>] (the usage meter's latency)
 * --meter-only --tsx (serve src/ through tsx rather than bundles of it: see bundle-targets.ts).
 */
import { rmSync } from 'node:fs'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execFileSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import {
  formats as allFormats,
  loadOptions,
  measureCase,
  medianCase,
  verify,
  type CaseResult,
  type Format,
  type Subject,
} from './cases'
import { bundleGateway, bundleServerProcess } from './bundle-targets'
import { startTarget, type Target, type TargetLaunch } from './child'
import { measureCoreSize, type CoreSize } from './core-size'
import { measureCosts, type Cost } from './cost-breakdown'
import { measureFirstByte, type FirstByte } from './first-byte'
import { measureMeterLatency, type MeterLatency } from './meter-latency'
import { measureOpenStreams, type OpenStreams } from './open-streams'
import { runLoad } from './load'
import { fixed, formatTable, loadTable } from './report'
import { transportLabels, type TransportName } from './transports'

const allTransports: TransportName[] = [
  'fetch',
  'node-fetch',
  'undici-request',
  'undici-fetch',
  'canned',
]
const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '32' },
    unloaded: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    'first-byte': { type: 'string', default: '200' },
    streams: { type: 'string', default: '5000' },
    'import-runs': { type: 'string', default: '5' },
    src: { type: 'string', default: fileURLToPath(new URL('../src', import.meta.url)) },
    base: { type: 'string', multiple: true, default: [] },
    'promise-seconds': { type: 'string', default: '1' },
    formats: { type: 'string', default: allFormats.join(',') },
    node: { type: 'string', default: process.execPath },
    transports: { type: 'string', default: '' },
    quick: { type: 'boolean', default: false },
    breakdown: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    meter: { type: 'boolean', default: false },
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
    'meter-only': { type: 'boolean', default: false },
    tsx: { type: 'boolean', default: false },
  },
})
const quick = flags.quick
const durationS = quick ? 2 : Number(flags.duration)
const warmupS = Number(flags.warmup)
const unloadedS = quick ? 2 : Number(flags.unloaded)
const connections = Number(flags.connections)
const rounds = quick ? 1 : Math.max(1, Math.floor(Number(flags.rounds)))
const firstByteSamples = quick ? 50 : Number(flags['first-byte'])
const streamCount = quick ? 1000 : Number(flags.streams)
const importRuns = Math.max(1, Number(flags['import-runs']))
const sourceDir = flags.src
/** The answer shapes measured (`--formats json,sse,translated-sse`). */
const formats = flags.formats.split(',').map((name) => name.trim()) as Format[]
for (const format of formats) {
  if (!allFormats.includes(format)) throw new Error(`Unknown format ${format}`)
}
/** The checkouts compared with `--src`: `label=dir`, or a dir labelled `base`, `base 2`… */
const bases = flags.base.map((spec, index) => {
  const at = spec.indexOf('=')
  const fallback = index === 0 ? 'base' : `base ${index + 1}`
  return at > 0
    ? { label: spec.slice(0, at), dir: spec.slice(at + 1) }
    : { label: fallback, dir: spec }
})
const promiseSeconds = Number(flags['promise-seconds'])
const nodePath = flags.node
const transports = flags.transports
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '') as TransportName[]
for (const name of transports) {
  if (!allTransports.includes(name)) throw new Error(`Unknown transport ${name}`)
}

const gatewayCount = 1 + transports.length + bases.length
const plannedS =
  rounds * (1 + gatewayCount) * formats.length * (warmupS + durationS) +
  (1 + gatewayCount) * formats.length * (unloadedS + promiseSeconds) +
  (firstByteSamples > 0 ? 20 : 0) +
  (streamCount > 0 ? 2 * (10 + streamCount / 200) : 0) +
  importRuns * 2 +
  (flags.breakdown ? 6 : 0) +
  (flags.meter ? 30 : 0)
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

/** Per format and gateway: its and the relay's figures, and the median of per-round ratios. */
type Ratio = {
  format: Format
  gateway: string
  relayRps: number
  gatewayRps: number
  ratio: number
  ratios: number[]
  relayCpu: number
  gatewayCpu: number
  relayPromises: number | undefined
  gatewayPromises: number | undefined
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right)
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN
}

async function main(): Promise<void> {
  const cpu = cpus()[0]?.model ?? 'unknown CPU'
  const nodeVersion =
    nodePath === process.execPath
      ? process.version
      : execFileSync(nodePath, ['--version']).toString().trim()
  const machine = `Node ${nodeVersion}, ${availableParallelism()} CPUs (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB, ${process.platform}/${process.arch}`
  console.log(`model-gateway bench: ${machine}`)
  console.log(`source: ${sourceDir}${bases.map((base) => `, ${base.label}: ${base.dir}`).join('')}`)
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
    `autocannon, ${connections} connections, ${warmupS} s warm-up + ${durationS} s per case, ${rounds} interleaved round(s); about ${Math.ceil(plannedS)} s in all.`,
  )
  console.log(
    `The load generator, the mock upstream and the target share these ${availableParallelism()} cores: ratios and CPU per request are the figures to compare.\n`,
  )

  // The targets as the package ships them (bundle-targets.ts), unless --tsx.
  const bundles = flags.tsx ? undefined : await mkdtemp(join(tmpdir(), 'mg-bench-bundles-'))
  if (bundles !== undefined) {
    launch.entry = await bundleServerProcess(bundles)
    process.once('exit', () => rmSync(bundles, { recursive: true, force: true }))
  }
  const gatewayOf = (dir: string, label: string) =>
    bundles === undefined ? Promise.resolve(dir) : bundleGateway(dir, join(bundles, label))
  const gatewaySource = await gatewayOf(sourceDir, 'gateway')
  const baseSources = await Promise.all(
    bases.map((base, index) => gatewayOf(base.dir, `base-${index}`)),
  )
  const mock = await start(['mock'])
  const profile = flags.profile
    ? ['--cpu-prof', `--cpu-prof-dir=${new URL('profiles/', resultsDir).pathname}`]
    : []
  const gatewayTransports: Array<TransportName | 'cli'> = ['cli', ...transports]
  const [relay, ...gateways] = await Promise.all([
    start(['relay', mock.url], [], nodePath),
    ...gatewayTransports.map((transport) =>
      start(['gateway', mock.url, transport, gatewaySource], profile, nodePath),
    ),
  ])
  const baseTargets = await Promise.all(
    baseSources.map((dir) => start(['gateway', mock.url, 'cli', dir], profile, nodePath)),
  )
  const relaySubject: Subject = {
    target: relay!,
    name: 'bare node:http relay',
    kind: 'relay',
    transport: undefined,
  }
  const gatewaySubjects: Subject[] = gatewayTransports.map((transport, index) => ({
    target: gateways[index]!,
    name:
      transport === 'cli'
        ? 'gateway (serveGateway + createNodeFetch)'
        : `gateway, ${transportLabels[transport]}`,
    kind: 'gateway' as const,
    transport: transport === 'cli' ? undefined : transport,
  }))
  const labels = new Map<Subject, string>([[gatewaySubjects[0]!, 'gateway']])
  for (const [index, base] of bases.entries()) {
    const subject: Subject = {
      target: baseTargets[index]!,
      name: `gateway, ${base.label} (--base)`,
      kind: 'gateway',
      transport: undefined,
    }
    gatewaySubjects.push(subject)
    labels.set(subject, base.label)
  }
  const subjects = [relaySubject, ...gatewaySubjects]
  for (const subject of subjects) {
    for (const format of formats) await verify(subject, format)
  }
  progress('targets listening and answering')

  // Rounds go relay then gateway per format, so a slow spell of a shared machine hits both alike.
  const samples = new Map<string, CaseResult[]>()
  for (let round = 1; round <= rounds; round += 1) {
    for (const format of formats) {
      for (const subject of subjects) {
        progress(`${subject.name} · ${format} · ${connections} connections · round ${round}`)
        await runLoad(loadOptions(subject, format, connections, warmupS))
        const result = await measureCase(subject, format, connections, durationS)
        const key = `${subject.name} · ${format}`
        samples.set(key, [...(samples.get(key) ?? []), result])
      }
    }
  }
  const loaded = [...samples.values()].map(medianCase)

  // Promises per request, in a pass of its own: V8's promise hook would inflate the CPU above.
  const promises = new Map<string, number>()
  if (promiseSeconds > 0) {
    for (const format of formats) {
      for (const subject of subjects) {
        progress(`${subject.name} · ${format} · promises per request`)
        await subject.target.countPromises(true)
        const result = await runLoad(loadOptions(subject, format, connections, promiseSeconds))
        const created = await subject.target.countPromises(false)
        promises.set(`${subject.name} · ${format}`, created / Math.max(1, result.requests))
      }
    }
  }
  const ratios: Ratio[] = formats.flatMap((format) =>
    gatewaySubjects
      .filter((subject) => subject.transport === undefined)
      .map((subject) => {
        const relayRounds = samples.get(`${relaySubject.name} · ${format}`)!
        const gatewayRounds = samples.get(`${subject.name} · ${format}`)!
        const perRound = gatewayRounds.map((result, index) => result.rps / relayRounds[index]!.rps)
        return {
          format,
          gateway: labels.get(subject)!,
          relayRps: median(relayRounds.map((result) => result.rps)),
          gatewayRps: median(gatewayRounds.map((result) => result.rps)),
          ratio: median(perRound),
          ratios: perRound,
          relayCpu: median(relayRounds.map((result) => result.cpuMicrosPerRequest)),
          gatewayCpu: median(gatewayRounds.map((result) => result.cpuMicrosPerRequest)),
          relayPromises: promises.get(`${relaySubject.name} · ${format}`),
          gatewayPromises: promises.get(`${subject.name} · ${format}`),
        }
      }),
  )

  const unloaded: CaseResult[] = []
  if (unloadedS > 0) {
    for (const format of formats) {
      for (const subject of subjects) {
        progress(`${subject.name} · ${format} · 1 connection`)
        unloaded.push(await measureCase(subject, format, 1, unloadedS))
      }
    }
  }
  let firstByte: FirstByte[] = []
  if (firstByteSamples > 0) {
    progress(`SSE first byte, ${firstByteSamples} requests per target, one at a time`)
    firstByte = await measureFirstByte(subjects, firstByteSamples)
  }
  const openStreams: OpenStreams[] = []
  if (streamCount > 0) {
    for (const subject of [relaySubject, gatewaySubjects[0]!]) {
      progress(`${subject.name} · ${streamCount} open streams`)
      openStreams.push(await measureOpenStreams(subject, streamCount))
    }
  }
  await stopAll()
  progress(`core import (${importRuns} runs) and gzip size`)
  const core = await measureCoreSize(sourceDir, importRuns, nodePath)

  let costs: Cost[] = []
  if (flags.breakdown) {
    progress('per-request cost breakdown, in process')
    costs = await measureCosts()
  }
  const meter = flags.meter ? await meterSection() : undefined

  console.log(`\nLoaded: ${connections} connections, ${durationS} s per case, median of rounds`)
  console.log(loadTable(loaded, true))
  if (unloaded.length > 0) {
    console.log(`\nUnloaded: 1 connection, ${unloadedS} s per case (added latency, no queueing)`)
    console.log(loadTable(unloaded, false))
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
  printSummary(ratios, unloaded, firstByte, openStreams, core)

  await mkdir(resultsDir, { recursive: true })
  const report = {
    date: new Date().toISOString(),
    machine,
    source: sourceDir,
    settings: {
      connections,
      durationS,
      warmupS,
      unloadedS,
      rounds,
      transports,
      streamCount,
      bases,
    },
    ratios,
    loaded,
    unloaded,
    firstByte,
    openStreams,
    core,
    costs,
    meter,
  }
  await writeFile(new URL('latest.json', resultsDir), `${JSON.stringify(report, null, 2)}\n`)
  console.log('\nResults written to bench/results/latest.json')
}

/** The figures issue 12 judges the gateway by, against the bare relay, in one table each. */
function printSummary(
  ratios: readonly Ratio[],
  unloaded: readonly CaseResult[],
  firstByte: readonly FirstByte[],
  openStreams: readonly OpenStreams[],
  core: CoreSize,
): void {
  console.log(`\nGateway against the bare relay (${connections} connections)`)
  console.log(
    formatTable(
      [
        'format',
        'gateway',
        'relay req/s',
        'gateway req/s',
        'ratio',
        'per round',
        'relay CPU µs/req',
        'gateway CPU µs/req',
        'relay promises/req',
        'gateway promises/req',
      ],
      ratios.map((row) => [
        row.format,
        row.gateway,
        fixed(row.relayRps, 0),
        fixed(row.gatewayRps, 0),
        fixed(row.ratio, 2),
        row.ratios.map((ratio) => ratio.toFixed(2)).join(' '),
        fixed(row.relayCpu, 0),
        fixed(row.gatewayCpu, 0),
        fixed(row.relayPromises, 1),
        fixed(row.gatewayPromises, 1),
      ]),
    ),
  )
  const gateway = (format: Format) =>
    unloaded.find((result) => result.kind === 'gateway' && result.format === format)
  const relay = (format: Format) =>
    unloaded.find((result) => result.kind === 'relay' && result.format === format)
  const lines: string[][] = []
  for (const format of formats) {
    const ours = gateway(format)
    const floor = relay(format)
    if (ours === undefined || floor === undefined) continue
    lines.push([
      `${format}, 1 connection: added p50 / p99 ms`,
      `${fixed(ours.p50 - floor.p50, 3)} / ${fixed(ours.p99 - floor.p99, 3)}`,
    ])
  }
  const relayFirst = firstByte.find((row) => row.kind === 'relay')
  const gatewayFirst = firstByte.find((row) => row.kind === 'gateway')
  if (relayFirst !== undefined && gatewayFirst !== undefined) {
    lines.push([
      'SSE first byte: relay / gateway p50 ms, added',
      `${fixed(relayFirst.p50, 3)} / ${fixed(gatewayFirst.p50, 3)}, +${fixed(gatewayFirst.p50 - relayFirst.p50, 3)}`,
    ])
  }
  for (const row of openStreams) {
    lines.push([
      `${row.kind}: KB per open stream at ${row.streams}`,
      fixed(row.bytesPerStream / 1024, 1),
    ])
  }
  lines.push([
    'import of the core: wall / CPU ms',
    `${fixed(core.importWallMs, 1)} / ${fixed(core.importCpuMs, 1)}`,
  ])
  lines.push([
    'core gzip KB: with zod + eventsource-parser / alone',
    `${fixed(core.gzipBytesWithDeps / 1024, 1)} / ${fixed(core.gzipBytesCore / 1024, 1)}`,
  ])
  console.log('')
  console.log(formatTable(['figure', 'value'], lines))
}

/** How targets start: the bundled harness when there is one (`main` sets it). */
const launch: TargetLaunch = {}

async function start(args: string[], execArgv: string[] = [], execPath?: string): Promise<Target> {
  const target = await startTarget(args, execArgv, execPath, launch)
  running.add(target)
  return target
}

async function stopAll(): Promise<void> {
  const targets = [...running]
  running.clear()
  await Promise.all(targets.map((target) => target.stop()))
}

// A hard bound on the whole run: a hung case must not keep the machine busy.
const deadline = setTimeout(
  () => {
    console.error(`bench: still running after ${Math.ceil(plannedS * 2 + 120)} s, giving up`)
    void stopAll().finally(() => process.exit(1))
  },
  (plannedS * 2 + 120) * 1000,
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
