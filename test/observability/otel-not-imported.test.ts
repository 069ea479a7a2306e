import { build, type Metafile } from 'esbuild'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** The modules an entry reaches by static imports only, and the dynamic imports among them. */
async function staticGraph(entry: string) {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'neutral',
    external: ['@opentelemetry/api'],
    logLevel: 'silent',
  })
  const inputs: Metafile['inputs'] = result.metafile.inputs
  const reached = new Set<string>()
  const dynamic = new Set<string>()
  const visit = (path: string) => {
    if (reached.has(path)) return
    reached.add(path)
    for (const imported of inputs[path]?.imports ?? []) {
      if (imported.kind === 'dynamic-import') dynamic.add(imported.path)
      else visit(imported.path)
    }
  }
  visit(entry)
  return { reached, dynamic }
}

describe('with telemetry off, the core does not import the OpenTelemetry API', () => {
  it('the core entry reaches @opentelemetry/api and the OTel module only by dynamic import', async () => {
    const { reached, dynamic } = await staticGraph('src/index.ts')
    expect(reached.has('src/index.ts')).toBe(true)
    expect(reached.has('src/gateway.ts')).toBe(true)
    expect([...reached].filter((path) => path.includes('opentelemetry'))).toEqual([])
    expect([...reached].filter((path) => path.includes('observability/otel/otel-'))).toEqual([])
    // The loader imports both lazily, and only a config with `telemetry` calls it.
    expect(dynamic).toContain('@opentelemetry/api')
    expect(dynamic).toContain('src/observability/otel/otel-telemetry.ts')
  })

  it('the built core (dist/index.js) reaches it by no static import either', () => {
    const seen = new Set<string>()
    const bare: string[] = []
    const visit = (path: string) => {
      if (seen.has(path)) return
      seen.add(path)
      const text = readFileSync(path, 'utf8')
      for (const match of text.matchAll(
        /^\s*(?:import|export)\b[^;'"]*?from\s*["']([^"']+)["']/gm,
      )) {
        const specifier = match[1]!
        if (specifier.startsWith('.')) visit(join(dirname(path), specifier))
        else bare.push(specifier)
      }
    }
    visit(join(root, 'dist/index.js'))
    expect(bare.filter((specifier) => specifier.includes('opentelemetry'))).toEqual([])
    expect([...seen].filter((path) => path.includes('otel-telemetry'))).toEqual([])
    expect(readFileSync(join(root, 'dist/index.js'), 'utf8')).toContain(
      'import("@opentelemetry/api")',
    )
  })
})
