import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { uiAssets } from '../../src/console/generated/ui-assets'
import { repoRoot } from '../helpers/spawn-runtime'

/** The console's budget: its page's script and style together, gzip -9. */
const budgetBytes = 35 * 1024

describe('console size and packaging', () => {
  it('keeps the page within 35 KB gzip, script and style together', () => {
    const script = gzipSync(uiAssets.js, { level: 9 }).length
    const style = gzipSync(uiAssets.css, { level: 9 }).length
    console.log(
      `console page: ${script} B script + ${style} B style = ${script + style} B gzip (budget ${budgetBytes})`,
    )
    expect(uiAssets.js.length).toBeGreaterThan(10_000)
    expect(script + style).toBeLessThanOrEqual(budgetBytes)
  })

  it('keeps every UI byte out of the core entry, source and build alike', async () => {
    const result = await build({
      entryPoints: [join(repoRoot, 'src', 'index.ts')],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'neutral',
      logLevel: 'silent',
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(
      inputs.filter((input) => /src\/console\/|node_modules\/(preact|htm)\//.test(input)),
    ).toEqual([])
    for (const file of ['dist/index.js', 'dist/index.cjs']) {
      const core = readFileSync(join(repoRoot, file), 'utf8')
      expect(core).not.toContain(uiAssets.version)
      expect(core).not.toContain('Loading the console')
      expect(core).not.toContain(uiAssets.js.slice(0, 200))
      expect(core).not.toContain(uiAssets.css.slice(0, 200))
    }
    // The console entry carries them, as strings: nothing is read from disk at run time. Its ES
    // module shares chunks with the Node bridge's build (the CLI serves it): none it loads may
    // import a Node built-in or a driver, or Bun, Deno and Workers could not load it.
    for (const entry of ['dist/console/index.js', 'dist/console/index.cjs']) {
      const files = moduleGraph(join(repoRoot, entry))
      const code = files.map((file) => readFileSync(file, 'utf8')).join('\n')
      expect(code, entry).toContain(uiAssets.version)
      expect(code, entry).not.toMatch(
        /\bnode:|readFileSync|from "(pg|redis)"|require\("(pg|redis)"\)/,
      )
    }
  })
})

/** A built file and every file it imports by relative path, transitively. */
function moduleGraph(entry: string): string[] {
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const code = readFileSync(file, 'utf8')
    for (const match of code.matchAll(/(?:from\s*|import\s*|require\()\s*"(\.{1,2}\/[^"]+)"/g)) {
      visit(resolve(dirname(file), match[1]!))
    }
  }
  visit(entry)
  return [...seen]
}
