import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import * as prettier from 'prettier'
import { buildConfigReference } from './json-schema'
import { renderReference } from './reference-table'

/** A file the generator writes, with the text it should hold. */
export type GeneratedFile = { path: string; text: string }

export const referenceStart = '<!-- config-reference:start -->'
export const referenceEnd = '<!-- config-reference:end -->'

/** What `docs/configuration.md` starts as when it does not exist yet. */
const newPage = `# Configuration

Every field of a gateway config: what it does, what it takes and its default.

${referenceStart}
${referenceEnd}
`

/**
 * The two generated files, as the generator writes them: the JSON Schema of a config file
 * (`config.schema.json`, shipped in the package) and `docs/configuration.md` with the reference
 * between its markers (the rest of the page is left as it is). Both are formatted by the
 * repository's prettier, so that `format:check` and the generator agree.
 */
export async function generatedFiles(root: string): Promise<GeneratedFile[]> {
  const { schema, fields } = buildConfigReference()
  const schemaPath = join(root, 'config.schema.json')
  const docsPath = join(root, 'docs/configuration.md')
  const page = await readFile(docsPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return newPage
    throw error
  })
  const start = page.indexOf(referenceStart)
  const end = page.indexOf(referenceEnd)
  if (start < 0 || end < start) {
    throw new Error(`${docsPath} has no ${referenceStart} … ${referenceEnd} markers`)
  }
  const docs =
    page.slice(0, start + referenceStart.length) +
    `\n\n${renderReference(fields)}\n\n` +
    page.slice(end)
  return [
    { path: schemaPath, text: await format(JSON.stringify(schema), schemaPath) },
    { path: docsPath, text: await format(docs, docsPath) },
  ]
}

async function format(text: string, path: string): Promise<string> {
  const options = await prettier.resolveConfig(path)
  return prettier.format(text, { ...options, filepath: path })
}
