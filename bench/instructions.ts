/**
 * `npm run bench:instructions`: machine instructions per request, counted by valgrind's callgrind.
 *
 * CPU time per request on a shared two-core machine moves by 10–30 % between runs (the host's
 * clock and neighbours), more than most changes to the hot path are worth. Instructions retired
 * do not: for the same binary, inputs and settings callgrind counts the same total whatever else
 * the machine does. So each target — the bare relay, the gateway of this checkout and of each
 * `--base` checkout — runs under `valgrind --tool=callgrind` with instrumentation off; a warm-up
 * of `--warmup` requests runs at valgrind's uninstrumented speed (V8 compiles its hot code then),
 * instrumentation is switched on with `callgrind_control`, `--requests` requests are sent at
 * `--connections` at once, and the count is dumped. Everything the process executes is counted:
 * the gateway's code, V8's compiler and garbage collector (on every thread), Node's and libuv's,
 * and the system-call entry points — not the kernel's work, which the relay and gateway share
 * (the same reads and writes per request).
 *
 * The count is a proxy, not CPU time: an instruction that misses the cache costs more than one
 * that does not, and valgrind runs the process some 50 times slower, so timers fire after more
 * requests than they would natively. It is the figure to compare a change by, run after run;
 * `npm run bench` gives the time.
 *
 * Flags: --formats <list> (json,sse,translated-sse) --connections <n> (32) --warmup <n> (20000)
 * --requests <n> (2000) --base [<label>=]<dir> (repeatable) --src <dir> --node <path>
 * --tsx (run src/ through tsx instead of bundles, see bundle-targets.ts) --no-relay --no-bases-gateway (only the relay and --base
 * targets) --node-arg <flag> (repeatable: e.g. --perf-basic-prof, to name compiled JavaScript in a
 * kept dump) --keep <dir> (keep the callgrind dumps there, for callgrind_annotate: V8's builtins,
 * its compiler and collector, Node's C++ and libc by name; compiled JavaScript as addresses).
 */
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs, promisify } from 'node:util'
import { formats as allFormats, loadOptions, verify, type Format, type Subject } from './cases'
import { bundleGateway, bundleServerProcess } from './bundle-targets'
import { startTarget, type Target, type TargetLaunch } from './child'
import { runLoad } from './load'
import { fixed, formatTable } from './report'

const run = promisify(execFile)
const { values: flags } = parseArgs({
  options: {
    formats: { type: 'string', default: allFormats.join(',') },
    connections: { type: 'string', default: '32' },
    warmup: { type: 'string', default: '20000' },
    requests: { type: 'string', default: '2000' },
    base: { type: 'string', multiple: true, default: [] },
    src: { type: 'string', default: fileURLToPath(new URL('../src', import.meta.url)) },
    node: { type: 'string', default: process.execPath },
    'no-relay': { type: 'boolean', default: false },
    keep: { type: 'string' },
    tsx: { type: 'boolean', default: false },
    'node-arg': { type: 'string', multiple: true, default: [] },
    'no-bases-gateway': { type: 'boolean', default: false },
  },
})

const formats = flags.formats.split(',') as Format[]
const connections = Number(flags.connections)
const warmup = Number(flags.warmup)
const requests = Number(flags.requests)
const bases = flags.base.map((entry, index) => {
  const at = entry.indexOf('=')
  return at > 0
    ? { label: entry.slice(0, at), dir: entry.slice(at + 1) }
    : { label: index === 0 ? 'base' : `base ${index + 1}`, dir: entry }
})
const resultsDir = new URL('./results/', import.meta.url)

type Counted = {
  subject: string
  format: Format
  requests: number
  /** On every thread. */
  instructions: number
  /** On the main thread. */
  mainThread: number
}

async function main(): Promise<void> {
  await run('valgrind', ['--version']).catch(() => {
    throw new Error('valgrind is not installed (Debian: apt-get install valgrind)')
  })
  const dumps = flags.keep ?? (await mkdtemp(join(tmpdir(), 'mg-callgrind-')))
  await mkdir(dumps, { recursive: true })
  // The targets as the package ships them (bundle-targets.ts), unless --tsx.
  const bundles = flags.tsx ? undefined : await mkdtemp(join(tmpdir(), 'mg-bench-bundles-'))
  const entry = bundles === undefined ? undefined : await bundleServerProcess(bundles)
  const gatewayOf = (dir: string, label: string) =>
    bundles === undefined ? Promise.resolve(dir) : bundleGateway(dir, join(bundles, label))
  const launch: TargetLaunch = entry === undefined ? {} : { entry }
  const mock = await startTarget(['mock'], [], undefined, launch)
  const subjects: Array<{ label: string; args: string[] }> = [
    ...(!flags['no-relay'] ? [{ label: 'relay', args: ['relay', mock.url] }] : []),
  ]
  if (!flags['no-bases-gateway']) {
    subjects.push({
      label: 'gateway',
      args: ['gateway', mock.url, 'cli', await gatewayOf(flags.src, 'gateway')],
    })
  }
  for (const [index, base] of bases.entries()) {
    const dir = await gatewayOf(base.dir, `base-${index}`)
    subjects.push({ label: base.label, args: ['gateway', mock.url, 'cli', dir] })
  }
  const counted: Counted[] = []
  try {
    for (const { label, args } of subjects) {
      const outFile = join(dumps, `${label.replace(/\W+/g, '-')}.out`)
      const target = await startTarget(args, flags['node-arg'], flags.node, {
        ...launch,
        wrapper: [
          'valgrind',
          '--tool=callgrind',
          '--instr-atstart=no',
          `--callgrind-out-file=${outFile}`,
          '--separate-threads=yes',
          '--quiet',
        ],
        startTimeoutMs: 300_000,
      })
      try {
        for (const format of formats) {
          const kind: Subject['kind'] = label === 'relay' ? 'relay' : 'gateway'
          const subject = { target, kind }
          progress(`${label} · ${format}: warming up (${warmup} requests, uninstrumented)`)
          // Under valgrind a first request compiles its path at a fiftieth of the speed.
          await verify(subject, format, 300_000)
          await load(subject, format, warmup)
          await callgrind(target, ['--instr=on'])
          await callgrind(target, ['--zero'])
          progress(`${label} · ${format}: counting ${requests} requests`)
          await load(subject, format, requests)
          const { total, main } = await dumpTotal(target, dumps, outFile)
          await callgrind(target, ['--instr=off'])
          counted.push({ subject: label, format, requests, instructions: total, mainThread: main })
          progress(
            `${label} · ${format}: ${fixed(total / requests / 1000, 1)} k instructions per request (main thread ${fixed(main / requests / 1000, 1)} k)`,
          )
        }
      } finally {
        await target.stop()
      }
    }
  } finally {
    await mock.stop()
    if (flags.keep === undefined) await rm(dumps, { recursive: true, force: true })
    if (bundles !== undefined) await rm(bundles, { recursive: true, force: true })
  }
  report(counted)
  await mkdir(resultsDir, { recursive: true })
  await writeFile(
    new URL('instructions.json', resultsDir),
    `${JSON.stringify({ date: new Date().toISOString(), connections, warmup, requests, counted }, null, 2)}\n`,
  )
  console.log('Results written to bench/results/instructions.json')
}

async function load(subject: Pick<Subject, 'target' | 'kind'>, format: Format, amount: number) {
  const options = { ...loadOptions(subject, format, connections, 1), amount, timeoutS: 120 }
  const result = await runLoad(options)
  if (result.errors + result.non2xx + result.timeouts > 0 || result.requests !== amount) {
    throw new Error(
      `${format}: ${result.requests} of ${amount} answered 2xx (${result.errors} errors, ${result.non2xx} non-2xx, ${result.timeouts} timeouts)`,
    )
  }
}

function callgrind(target: Target, args: string[]): Promise<unknown> {
  return run('callgrind_control', [...args, String(target.pid)])
}

/**
 * Asks for a dump and reads its totals: one file per thread (`--separate-threads`), the main
 * thread's (`-01`: JavaScript, the scavenger's own share, Node's I/O) and all of them (V8's
 * background compiler and collector too).
 */
async function dumpTotal(
  target: Target,
  dir: string,
  outFile: string,
): Promise<{ total: number; main: number }> {
  const before = new Set(await readdir(dir))
  await callgrind(target, ['--dump'])
  const base = outFile.slice(dir.length + 1)
  const fresh = (await readdir(dir)).filter((name) => name.startsWith(base) && !before.has(name))
  if (fresh.length === 0) throw new Error('no new callgrind dump')
  let total = 0
  let main = 0
  for (const name of fresh) {
    const text = await readFile(join(dir, name), 'utf8')
    const line = /^(?:summary|totals):\s*(\d+)/m.exec(text)
    if (line === null) throw new Error(`no total in the callgrind dump ${name}`)
    total += Number(line[1])
    if (/-0*1$/.test(name)) main += Number(line[1])
  }
  return { total, main }
}

function report(counted: Counted[]): void {
  const rows: string[][] = []
  const per = (entry: Counted | undefined, field: 'instructions' | 'mainThread') =>
    entry === undefined ? undefined : entry[field] / entry.requests
  for (const format of formats) {
    const relay = counted.find((entry) => entry.subject === 'relay' && entry.format === format)
    const gateway = counted.find((entry) => entry.subject === 'gateway' && entry.format === format)
    for (const entry of counted.filter((item) => item.format === format)) {
      const cells = [format, entry.subject]
      for (const field of ['instructions', 'mainThread'] as const) {
        const own = per(entry, field)!
        const relayPer = entry === relay ? undefined : per(relay, field)
        const gatewayPer = entry === gateway || entry === relay ? undefined : per(gateway, field)
        cells.push(
          fixed(own / 1000, 1),
          relayPer === undefined ? '-' : fixed(own / relayPer, 2),
          gatewayPer === undefined
            ? '-'
            : `${fixed((gatewayPer - own) / 1000, 1)} (${fixed((100 * (gatewayPer - own)) / own, 1)} %)`,
        )
      }
      rows.push(cells)
    }
  }
  console.log(
    `\nInstructions per request (thousands), callgrind, ${connections} connections, ${requests} requests after ${warmup}; "gateway −" is this checkout against the row's`,
  )
  console.log(
    formatTable(
      [
        'format',
        'target',
        'all threads',
        '× relay',
        'gateway −',
        'main thread',
        '× relay',
        'gateway −',
      ],
      rows,
    ),
  )
}

function progress(text: string): void {
  console.log(`  ${text}`)
}

main().catch((error: unknown) => {
  console.error('bench:instructions failed:', error)
  process.exit(1)
})
