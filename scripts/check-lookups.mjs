// Fails when code in src/ indexes a plain object with an arbitrary string, uses `in` on one, or
// passes a possible object to `String` (see unsafe-lookups.mjs): client strings such as
// `constructor` or `__proto__` must never reach Object.prototype.
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { findUnsafeLookups } from './unsafe-lookups.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const integrations = new Set(['node', 'postgres', 'redis'])

function* files(folder) {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name)
    // The integration entry points (Node glue, Postgres, Redis) read their own drivers' rows and
    // never index by client JSON; they are left to their own review.
    if (statSync(path).isDirectory()) {
      if (!integrations.has(relative(join(root, 'src'), path))) yield* files(path)
    } else if (/\.ts$/.test(name)) yield path
  }
}

const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile)
const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root)
const problems = findUnsafeLookups([...files(join(root, 'src'))], options)
if (problems.length > 0) {
  console.error('Lookups a client string could turn against the gateway:')
  for (const problem of problems) console.error(`  ${relative(root, problem)}`)
  process.exit(1)
}
console.log('lookups: no plain-object table indexed by an arbitrary string')
