import { execFile } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

/** The core's weight: what importing `model-gateway` costs, and its size over the wire. */
export type CoreSize = {
  /** Median of the runs: wall-clock and CPU (user + system) milliseconds of `import()`. */
  importWallMs: number
  importCpuMs: number
  /** Minified and gzipped (level 9), with its dependencies (zod, eventsource-parser) bundled. */
  gzipBytesWithDeps: number
  /** The same, without the dependencies. */
  gzipBytesCore: number
}

const run = promisify(execFile)

/**
 * Bundles `src/index.ts` of a checkout as `tsup` builds the published core (ESM, dependencies
 * bundled), imports it in fresh Node processes (`execPath`) and times the import; then bundles it
 * minified, with and without its dependencies, and gzips it.
 */
export async function measureCoreSize(
  sourceDir: string,
  runs: number,
  execPath = process.execPath,
): Promise<CoreSize> {
  const resultsDir = new URL('./results/', import.meta.url)
  await mkdir(resultsDir, { recursive: true })
  // Inside the repository, so that the bundle's imports resolve to its node_modules.
  const published = new URL('core-import.mjs', resultsDir).pathname
  const common = {
    entryPoints: [`${sourceDir}/index.ts`],
    bundle: true,
    format: 'esm' as const,
    platform: 'neutral' as const,
    mainFields: ['module', 'main'],
    target: 'es2022',
    logLevel: 'error' as const,
    // An optional peer dependency, imported only by `telemetry` (dynamically): the package never
    // bundles it.
    external: ['@opentelemetry/api'],
  }
  // As tsup builds it: the dependencies bundled, tree-shaken.
  await build({ ...common, outfile: published })
  const script = [
    `const cpu = process.cpuUsage(); const at = performance.now();`,
    `await import(${JSON.stringify(published)});`,
    `const used = process.cpuUsage(cpu);`,
    `console.log(JSON.stringify({ wall: performance.now() - at, cpu: (used.user + used.system) / 1000 }))`,
  ].join(' ')
  const walls: number[] = []
  const cpus: number[] = []
  for (let index = 0; index < runs; index += 1) {
    const { stdout } = await run(execPath, ['--input-type=module', '-e', script])
    const { wall, cpu } = JSON.parse(stdout) as { wall: number; cpu: number }
    walls.push(wall)
    cpus.push(cpu)
  }
  const gzipped = async (external: string[]) => {
    const result = await build({
      ...common,
      minify: true,
      write: false,
      external: [...common.external, ...external],
    })
    return gzipSync(result.outputFiles[0]!.contents, { level: 9 }).byteLength
  }
  return {
    importWallMs: median(walls),
    importCpuMs: median(cpus),
    gzipBytesWithDeps: await gzipped([]),
    gzipBytesCore: await gzipped(['zod', 'eventsource-parser']),
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}
