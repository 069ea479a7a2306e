import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { beforeAll, describe, expect, it } from 'vitest'
import { repoRoot } from '../helpers/spawn-runtime'
import { docSamples, type Sample } from './samples'

/**
 * The TypeScript in the docs, compiled in one program against the package's own types — the
 * `.d.ts` files of `dist/`, reached through its `exports` as `model-gateway`,
 * `model-gateway/node`… — and the installed SDKs', with the project's strict settings. Each sample
 * is its own module, placed (in memory) in `examples/`, so `./gateway.config.json` is the example
 * config. A renamed export, a changed option or a wrong type in a sample fails here.
 */
const samples = docSamples()
const compiled = samples.filter(
  (sample): sample is Extract<Sample, { kind: 'compile' | 'typed-json' }> =>
    sample.kind === 'compile' || sample.kind === 'typed-json',
)

/** The in-memory file of a sample: beside the examples, named after its page and line. */
function virtualPath(sample: Sample): string {
  const name = `${sample.block.file.replace(/[^A-Za-z0-9]+/g, '_')}_${sample.block.line}`
  // Beside the tests, so that the SDKs a sample imports resolve from test/node_modules (the test
  // packages, test/clients) and `model-gateway` from the package itself.
  return join(repoRoot, 'test', 'docs', `__docs_sample_${name}.ts`)
}

/** The declared interfaces and non-generic type aliases of a sample, by name. */
function declaredTypes(code: string): string[] {
  return [
    ...code.matchAll(/^(?:export\s+)?(?:interface\s+([A-Z]\w*)\s*\{|type\s+([A-Z]\w*)\s*=)/gm),
  ].map((match) => (match[1] ?? match[2])!)
}

/** The source the compiler reads for a sample: the sample, and the checks it asks for. */
function sourceOf(sample: (typeof compiled)[number]): string {
  if (sample.kind === 'typed-json') {
    const names = [...new Set(sample.type.match(/[A-Z]\w*/g) ?? [])]
    return `import type { ${names.join(', ')} } from '${sample.module}'\nexport const sample: ${sample.type} = ${sample.block.code}\n`
  }
  if (sample.matches === undefined) return sample.block.code
  const checks = declaredTypes(sample.block.code).map(
    (name) => `export const __same_${name}: __Same<${name}, __Package.${name}> = true`,
  )
  return [
    sample.block.code,
    `import type * as __Package from '${sample.matches}'`,
    'type __Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false',
    ...checks,
  ].join('\n')
}

let diagnostics: Map<string, string[]>

beforeAll(() => {
  const config = ts.readConfigFile(join(repoRoot, 'tsconfig.json'), ts.sys.readFile)
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot)
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    // Samples show a value and leave it unused; everything else stays as strict as the project.
    noUnusedLocals: false,
    noUnusedParameters: false,
    // Each sample is a module, so top-level await works and names do not collide.
    moduleDetection: ts.ModuleDetectionKind.Force,
  }
  const sources = new Map(compiled.map((sample) => [virtualPath(sample), sourceOf(sample)]))
  const host = ts.createCompilerHost(options)
  const { fileExists, readFile, getSourceFile } = host
  // The samples import `./gateway.config.json`, the example config, which sits in examples/.
  const sampleConfig = join(repoRoot, 'test', 'docs', 'gateway.config.json')
  const configText = () => readFile.call(host, join(repoRoot, 'examples', 'gateway.config.json'))
  host.fileExists = (path) =>
    sources.has(path) || path === sampleConfig || fileExists.call(host, path)
  host.readFile = (path) =>
    sources.get(path) ?? (path === sampleConfig ? configText() : readFile.call(host, path))
  host.getSourceFile = (path, language, onError, create) => {
    const text = sources.get(path)
    return text === undefined
      ? getSourceFile.call(host, path, language, onError, create)
      : ts.createSourceFile(path, text, language)
  }
  const program = ts.createProgram([...sources.keys()], options, host)
  diagnostics = new Map([...sources.keys()].map((path) => [path, []]))
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const path = diagnostic.file?.fileName
    const list = path === undefined ? undefined : diagnostics.get(path)
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
    if (list === undefined) {
      // A problem outside the samples (a broken dist build) fails every sample: say it once.
      for (const all of diagnostics.values()) all.push(`outside the samples: ${message}`)
      continue
    }
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0)
    list.push(`line ${line + 1} of the sample: ${message}`)
  }
}, 120_000)

describe('TypeScript samples in the docs', () => {
  it('has samples to compile, and few opted out', () => {
    expect(compiled.length).toBeGreaterThan(20)
    // Each skip is a sample nothing checks: adding one is a decision, not a default.
    const skipped = samples.filter((sample) => sample.kind === 'skip')
    expect(skipped.map((sample) => `${sample.block.file}:${sample.block.line}`)).toHaveLength(5)
  })

  for (const sample of compiled) {
    const { file, line } = sample.block
    const what = sample.kind === 'typed-json' ? `JSON of type ${sample.type}` : 'TypeScript'
    it(`${file}:${line} (${what}) compiles`, () => {
      expect(diagnostics.get(virtualPath(sample))).toEqual([])
    })
  }

  for (const sample of samples) {
    if (sample.kind !== 'file') continue
    it(`${sample.block.file}:${sample.block.line} is ${sample.path}, which its test runs`, () => {
      const file = readFileSync(join(repoRoot, sample.path), 'utf8')
      expect(sample.block.code.trim()).toBe(file.trim())
    })
  }
})
