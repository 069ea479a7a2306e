import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from './helpers/spawn-runtime'

// What the examples import through the package's `exports` map.
const outputs = [
  'dist/index.js',
  'dist/index.d.ts',
  'dist/extend.js',
  'dist/extend.cjs',
  'dist/node/index.js',
  'dist/node/index.d.ts',
  'dist/postgres/index.js',
  'dist/redis/index.js',
  'dist/redis/index.cjs',
  'dist/console/index.js',
]
// The console page's bundle (scripts/build-console.mjs), which tests import from src/ and tsup
// builds into dist/console.
const consoleAssets = 'src/console/generated/ui-assets.ts'
const consoleInputs = ['src/console/ui', 'src/console/guide', 'scripts/build-console.mjs']
const inputs = ['src', 'package.json', 'tsup.config.ts']

/**
 * Builds `dist/` with tsup before the suite when it is missing or older than its sources: the
 * example tests run the package as users get it, not the TypeScript sources.
 */
export default function setup(): void {
  const assets = oldest([join(repoRoot, consoleAssets)])
  if (assets === undefined || assets < newest(consoleInputs.map((path) => join(repoRoot, path)))) {
    run([join(repoRoot, 'scripts', 'build-console.mjs')], 'The console page build')
  }
  const built = oldest(outputs.map((path) => join(repoRoot, path)))
  const changed = newest(inputs.map((path) => join(repoRoot, path)))
  if (built !== undefined && built >= changed) return
  run([join(repoRoot, 'node_modules', 'tsup', 'dist', 'cli-default.js')], 'The tsup build')
}

function run(args: string[], what: string): void {
  const result = spawnSync(process.execPath, args, { cwd: repoRoot, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`${what} failed:\n${result.stdout}\n${result.stderr}`)
}

/** The oldest modification time of the files, or `undefined` if one is missing. */
function oldest(paths: readonly string[]): number | undefined {
  let time = Infinity
  for (const path of paths) {
    try {
      time = Math.min(time, statSync(path).mtimeMs)
    } catch {
      return undefined
    }
  }
  return time
}

/** The newest modification time under the paths, walking folders. */
function newest(paths: readonly string[]): number {
  let time = 0
  for (const path of paths) {
    const stats = statSync(path)
    if (!stats.isDirectory()) {
      time = Math.max(time, stats.mtimeMs)
      continue
    }
    const children = readdirSync(path).map((name) => join(path, name))
    time = Math.max(time, stats.mtimeMs, newest(children))
  }
  return time
}
