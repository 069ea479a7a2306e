import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'
import { findUnsafeLookups } from '../../scripts/unsafe-lookups.mjs'

const folder = mkdtempSync(join(tmpdir(), 'lookups-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

function problemsIn(source: string): string[] {
  const file = join(folder, `case-${Math.random().toString(36).slice(2)}.ts`)
  writeFileSync(file, source)
  return findUnsafeLookups([file], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
  }).map((problem) => problem.slice(file.length + 1))
}

describe('the lookup lint (npm run lint)', () => {
  it('flags a plain-object table indexed by a client string, read or written', () => {
    const problems = problemsIn(`
      const table: Record<string, string[]> = { text: ['text'] }
      export function fields(type: string) { return table[type] }
      export function build(key: string, value: unknown) { const out: Record<string, unknown> = {}; out[key] = value; return out }
    `)
    expect(problems).toEqual([
      expect.stringMatching(/^3: `table\[type\]` indexes a plain object/),
      expect.stringMatching(/^4: `out\[key\]` indexes a plain object/),
    ])
  })

  it('flags `in` with a non-literal or prototype-named key, and String() of a possible object', () => {
    const problems = problemsIn(`
      export function has(value: object, key: string) { return key in value || 'toString' in value }
      export function text(value: unknown) { return String(value) + \`\${value}\` }
    `)
    expect(problems).toHaveLength(4)
  })

  it('leaves the values of a tagged template alone: the tag gets them, not their text', () => {
    const problems = problemsIn(`
      declare function html(strings: TemplateStringsArray, ...values: unknown[]): unknown
      export function view(props: unknown) { return html\`<p>\${props}</p>\` }
      export function text(props: unknown) { return \`<p>\${props}</p>\` }
    `)
    expect(problems).toEqual([expect.stringMatching(/^4: `\$\{…\}` of `props`/)])
  })

  it('accepts Maps, literal keys, own-key checks, primitives and marked lines', () => {
    const problems = problemsIn(`
      const table = new Map<string, string>([['a', 'b']])
      export function ok(type: string, value: Record<string, unknown>, count: number) {
        const literal = value['model']
        const own = 'model' in value
        // lookup-safe: the key comes from Object.keys(value)
        const marked = value[type]
        return [table.get(type), literal, own, marked, String(count), \`\${type}\`, Object.hasOwn(value, type)]
      }
    `)
    expect(problems).toEqual([])
  })
})
