// The package.json that goes into the tarball: the repository's, without `scripts`. Every script
// there runs the repository's own files (`scripts/`, `src/`, `bench/`), none of which is in the
// package, and npm treats a `prepare` script in an installed tarball as an install script to
// approve ("install scripts not yet covered by allowScripts"). `prepack` runs `strip` and
// `postpack` runs `restore`, so the working tree ends as it began; should a pack stop between the
// two, the next `strip` keeps the first saved copy and `restore` puts it back.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

// The package's folder: the repository (a test passes another).
const root = process.argv[3] ?? join(dirname(fileURLToPath(import.meta.url)), '..')
const manifest = join(root, 'package.json')
// Under node_modules: never packed, never committed.
const saved = join(root, 'node_modules', '.cache', 'model-gateway-pack', 'package.json')

const command = process.argv[2]
if (command === 'strip') {
  const text = readFileSync(manifest, 'utf8')
  if (!existsSync(saved)) {
    mkdirSync(dirname(saved), { recursive: true })
    writeFileSync(saved, text)
  }
  const { scripts: _scripts, ...published } = JSON.parse(text)
  writeFileSync(manifest, `${JSON.stringify(published, null, 2)}\n`)
} else if (command === 'restore') {
  if (existsSync(saved)) renameSync(saved, manifest)
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore [package folder]')
  process.exit(2)
}
