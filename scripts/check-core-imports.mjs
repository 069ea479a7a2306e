// Fails when code in src/ outside src/node/ imports a `node:` module (or a bare Node built-in):
// the core must run unchanged on Bun, Deno and Cloudflare Workers.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const core = join(root, 'src')
const builtins = new Set(builtinModules)
const importPattern =
  /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm

function* files(folder) {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name)
    if (statSync(path).isDirectory()) {
      if (path !== join(core, 'node')) yield* files(path)
    } else if (/\.[cm]?tsx?$/.test(name)) {
      yield path
    }
  }
}

const problems = []
for (const path of files(core)) {
  const text = readFileSync(path, 'utf8')
  for (const match of text.matchAll(importPattern)) {
    const specifier = match[1]
    if (specifier.startsWith('node:') || builtins.has(specifier.split('/')[0])) {
      const line = text.slice(0, match.index).split('\n').length
      problems.push(`${relative(root, path)}:${line}: imports "${specifier}"`)
    }
  }
}
if (problems.length > 0) {
  console.error('Node built-ins imported outside src/node/ (the core must stay Web-APIs-only):')
  for (const problem of problems) console.error(`  ${problem}`)
  process.exit(1)
}
console.log('core imports: no Node built-ins outside src/node/')
