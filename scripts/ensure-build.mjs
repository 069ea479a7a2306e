// Builds what the tests and the typecheck read when it is missing or older than its sources: the
// console page's bundle (scripts/build-console.mjs → src/console/generated) and `dist/` (tsup),
// which the examples and the docs' samples import through the package's own `exports`. Nothing
// else needs `dist/` (`npm start` runs the sources), so `npm install` no longer builds it: the
// typecheck, the test setup and CI call this instead, and it does nothing when all is fresh.
//
//   node scripts/ensure-build.mjs
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

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
const consoleAssets = 'src/console/generated/ui-assets.ts'
const consoleInputs = ['src/console/ui', 'src/console/guide', 'scripts/build-console.mjs']
const inputs = ['src', 'package.json', 'tsup.config.ts']

const assets = oldest([consoleAssets])
if (assets === undefined || assets < newest(consoleInputs)) {
  run([join(root, 'scripts', 'build-console.mjs')], 'The console page build')
}
const built = oldest(outputs)
if (built === undefined || built < newest(inputs)) {
  console.log('ensure-build: building dist/ (tsup), which the examples and the typecheck import')
  run([join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js')], 'The tsup build')
}

function run(args, what) {
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' })
  if (result.status !== 0) {
    console.error(`${what} failed:\n${result.stdout}\n${result.stderr}`)
    process.exit(1)
  }
}

/** The oldest modification time of the files, or `undefined` if one is missing. */
function oldest(paths) {
  let time = Infinity
  for (const path of paths) {
    try {
      time = Math.min(time, statSync(join(root, path)).mtimeMs)
    } catch {
      return undefined
    }
  }
  return time
}

/** The newest modification time under the paths, walking folders. */
function newest(paths) {
  let time = 0
  for (const path of paths) {
    const full = join(root, path)
    const stats = statSync(full)
    if (!stats.isDirectory()) {
      time = Math.max(time, stats.mtimeMs)
      continue
    }
    const children = readdirSync(full).map((name) => join(path, name))
    time = Math.max(time, stats.mtimeMs, newest(children))
  }
  return time
}
