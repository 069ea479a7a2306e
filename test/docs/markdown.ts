import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { repoRoot } from '../helpers/spawn-runtime'

/**
 * A small reader of the project's Markdown: the files the docs tests check, their fenced code
 * blocks with the marker comment that may precede each, their headings' anchors and their links.
 * The pages are the project's own, written to a known style, so a line-based reader suffices.
 *
 * @module
 */

/** The documentation pages: the README and every page under `docs/`. */
export function docFiles(): string[] {
  const files = ['README.md']
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.md')) files.push(path)
    }
  }
  walk('docs')
  return files.sort()
}

/** A file's text, by its path from the repository root. */
export function readDoc(file: string): string {
  return readFileSync(join(repoRoot, file), 'utf8')
}

/** One fenced code block. */
export type CodeBlock = {
  /** The page, from the repository root. */
  file: string
  /** The 1-based line of the opening fence. */
  line: number
  /** The fence's language (`ts`, `json`, `sh`…), or `''`. */
  lang: string
  /** The block's text, without the fences and the indentation of the fence. */
  code: string
  /**
   * The `<!-- check: … -->` comment on the line before the fence (blank lines between allowed), as
   * its words after `check:`; `undefined` when there is none.
   */
  check: string | undefined
}

const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/
const checkComment = /^\s*<!--\s*check:\s*(.*?)\s*-->\s*$/

/** Every fenced code block of a page, in order. */
export function codeBlocks(file: string): CodeBlock[] {
  const lines = readDoc(file).split('\n')
  const blocks: CodeBlock[] = []
  for (let index = 0; index < lines.length; index += 1) {
    const open = fence.exec(lines[index]!)
    if (open === null) continue
    const [, indent = '', marks = '', lang = ''] = open
    const body: string[] = []
    let end = index + 1
    while (end < lines.length && !lines[end]!.trim().startsWith(marks)) {
      const text = lines[end]!
      body.push(text.startsWith(indent) ? text.slice(indent.length) : text.trimStart())
      end += 1
    }
    let before = index - 1
    while (before >= 0 && lines[before]!.trim() === '') before -= 1
    const marker = before >= 0 ? checkComment.exec(lines[before]!) : null
    blocks.push({ file, line: index + 1, lang, code: body.join('\n'), check: marker?.[1] })
    index = end
  }
  return blocks
}

/** The page's lines outside fenced code blocks, with their 1-based line numbers. */
function proseLines(file: string): { text: string; line: number }[] {
  const lines = readDoc(file).split('\n')
  const prose: { text: string; line: number }[] = []
  let inFence: string | undefined
  lines.forEach((text, index) => {
    const open = fence.exec(text)
    if (inFence !== undefined) {
      if (text.trim().startsWith(inFence)) inFence = undefined
    } else if (open !== null) {
      inFence = open[2]
    } else {
      prose.push({ text, line: index + 1 })
    }
  })
  return prose
}

/**
 * GitHub's anchor for a heading: the rendered text lower-cased, with everything but letters,
 * digits, marks, `_`, `-` and spaces dropped, and spaces turned into `-` (github-slugger's rule).
 */
export function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links keep their text
    .replace(/`/g, '')
    .replace(/<[^>]+>/g, '')
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors a page's headings make, with GitHub's `-1`, `-2` suffixes for repeats. */
export function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const { text } of proseLines(file)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)
    if (heading === null) continue
    const slug = githubSlug(heading[1]!)
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

/** One link of a page: `[text](target)`, outside code. */
export type Link = { file: string; line: number; target: string }

/** Every inline link of a page, outside code blocks and code spans. */
export function linksOf(file: string): Link[] {
  const links: Link[] = []
  for (const { text, line } of proseLines(file)) {
    const withoutCode = text.replace(/`[^`]*`/g, '')
    for (const match of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      links.push({ file, line, target: match[1]! })
    }
  }
  return links
}

/** A page's path as the tests print it. */
export function displayPath(file: string): string {
  return relative(repoRoot, join(repoRoot, file))
}
