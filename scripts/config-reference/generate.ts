import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generatedFiles } from './outputs'

/**
 * `npm run generate:config-docs`: writes `config.schema.json` and the reference in
 * `docs/configuration.md` from the config's zod schemas. With `--check`, writes nothing and
 * exits 1 when either differs from what it would write.
 */
const root = fileURLToPath(new URL('../..', import.meta.url))
const check = process.argv.includes('--check')
const stale: string[] = []
for (const file of await generatedFiles(root)) {
  const current = await readFile(file.path, 'utf8').catch(() => undefined)
  if (current === file.text) continue
  stale.push(relative(root, file.path))
  if (!check) {
    await mkdir(dirname(file.path), { recursive: true })
    await writeFile(file.path, file.text)
  }
}
if (check && stale.length > 0) {
  console.error(`stale: ${stale.join(', ')}; run npm run generate:config-docs`)
  process.exit(1)
}
console.log(
  stale.length === 0
    ? 'config reference: up to date'
    : `config reference: wrote ${stale.join(', ')}`,
)
