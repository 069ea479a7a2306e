import { codeBlocks, docFiles, type CodeBlock } from './markdown'

/**
 * What the docs tests do with each code block, from its language and the `<!-- check: … -->`
 * comment before it:
 *
 * - ```ts — compiled against the package's types (`model-gateway` as users import it);
 * - ```ts with `check: matches <module>` — compiled, and each non-generic `interface` or `type`
 *   it declares must be the same type as the module's export of that name (abridged
 *   declarations may leave optional members out);
 * - ```ts with `check: file <path>` — must be that file of the repository, whole: the examples,
 *   which the example tests start with their real runtimes (Bun, Deno, workerd);
 * - ```json — a whole gateway config, checked by the config parser;
 * - ```json with `check: config-fragment <where>` — a part of a config (`keys[]`, `groups[]`,
 *   `groups[].models[]`, `.` for top-level fields), checked inside a minimal config;
 * - ```json with `check: type <Type> [from <module>]` — compiled as a value of that exported type;
 * - ```json with `check: answer <METHOD> <path> [<header>: <value>]` — the fields (not the values)
 *   of what the gateway answers to that request;
 * - ```json with `check: json` — parsed only;
 * - any block with `check: skip: <reason>` — not checked (kept rare: the docs test counts them).
 *
 * Other languages (`sh`, `text`, `toml`) are not checked.
 *
 * @module
 */

/** A block and what is checked of it. */
export type Sample =
  | { kind: 'compile'; block: CodeBlock; matches?: string }
  | { kind: 'file'; block: CodeBlock; path: string }
  | { kind: 'config'; block: CodeBlock; fragment?: string }
  | { kind: 'typed-json'; block: CodeBlock; type: string; module: string }
  | { kind: 'answer'; block: CodeBlock; method: string; path: string; header?: [string, string] }
  | { kind: 'json'; block: CodeBlock }
  | { kind: 'skip'; block: CodeBlock; reason: string }

/** Every checked language's blocks of every page, classified; throws on a marker it cannot read. */
export function docSamples(): Sample[] {
  const samples: Sample[] = []
  for (const file of docFiles()) {
    for (const block of codeBlocks(file)) {
      const sample = classify(block)
      if (sample !== undefined) samples.push(sample)
    }
  }
  return samples
}

function classify(block: CodeBlock): Sample | undefined {
  const where = `${block.file}:${block.line}`
  const check = block.check
  const ts = block.lang === 'ts' || block.lang === 'typescript'
  const json = block.lang === 'json'
  if (check === undefined) {
    if (ts) return { kind: 'compile', block }
    if (json) return { kind: 'config', block }
    return undefined
  }
  const skip = /^skip:\s*(.+)$/.exec(check)
  if (skip !== null) return { kind: 'skip', block, reason: skip[1]! }
  if (ts) {
    const matches = /^matches\s+(\S+)$/.exec(check)
    if (matches !== null) return { kind: 'compile', block, matches: matches[1]! }
    const file = /^file\s+(\S+)$/.exec(check)
    if (file !== null) return { kind: 'file', block, path: file[1]! }
  }
  if (json) {
    if (check === 'json') return { kind: 'json', block }
    const fragment = /^config-fragment\s+(\S+)$/.exec(check)
    if (fragment !== null) return { kind: 'config', block, fragment: fragment[1]! }
    const typed = /^type\s+(.+?)(?:\s+from\s+(\S+))?$/.exec(check)
    if (typed !== null) {
      return { kind: 'typed-json', block, type: typed[1]!, module: typed[2] ?? 'model-gateway' }
    }
    const answer = /^answer\s+(GET|POST)\s+(\S+)(?:\s+([\w-]+):\s*(.+))?$/.exec(check)
    if (answer !== null) {
      const header =
        answer[3] === undefined ? undefined : ([answer[3], answer[4]!] as [string, string])
      return { kind: 'answer', block, method: answer[1]!, path: answer[2]!, header }
    }
  }
  throw new Error(`${where}: unknown check marker "${check}" on a \`\`\`${block.lang} block`)
}
