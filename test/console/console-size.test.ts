import { readFileSync } from 'node:fs'
import { join } from 'node:path'
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
    // The console entry carries them, as strings: nothing is read from disk at run time.
    const consoleEntry = readFileSync(join(repoRoot, 'dist/console/index.js'), 'utf8')
    expect(consoleEntry).toContain(uiAssets.version)
    expect(consoleEntry).not.toMatch(/\bnode:fs\b|readFile/)
  })
})
