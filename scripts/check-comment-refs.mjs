// Fails when a comment in src/ points at something a reader of the repository cannot find: a
// translation checklist row id that no page of docs/ mentions, a section number of a spec or
// checklist (`spec §2.1`, `§7 bug 3`), an ADR number with no file in docs/decisions/, or an
// author named by a letter ("A retries…", "B provides…"). A comment says the reason itself.
//
// Files listed in scripts/comment-refs-allow.txt are reported but do not fail the check: the
// list holds the files whose owners had not yet rewritten their comments, and shrinks to empty.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = fileURLToPath(new URL('..', import.meta.url))

function* walk(folder, test) {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name)
    if (statSync(path).isDirectory()) yield* walk(path, test)
    else if (test(name)) yield path
  }
}

/** A checklist row id: `ERR-02`, `TOOL-H-09`, `RESP-STR-13`, `ERR-S-A`. */
const rowId = /\b[A-Z]{2,6}(?:-[A-Z]{1,6})*-(?:\d{2}|[A-Z])\b/g
/** Ids that are not checklist rows. */
const notRows = /^(?:UTF|UCS)-/
const docs = [...walk(join(root, 'docs'), (name) => name.endsWith('.md')), join(root, 'README.md')]
const definedIds = new Set(docs.flatMap((path) => readFileSync(path, 'utf8').match(rowId) ?? []))
const adrs = new Set(readdirSync(join(root, 'docs', 'decisions')).map((name) => name.slice(0, 4)))

const rules = [
  {
    what: 'checklist row id not in docs/',
    find: (text) =>
      [...text.matchAll(rowId)]
        .map((match) => match[0])
        .filter((id) => !notRows.test(id) && !definedIds.has(id)),
  },
  // A section of a published RFC (`RFC 9112 §3.2.2`) is a public, stable address: allowed.
  {
    what: 'section number',
    find: (text) => text.match(/(?<!RFC \d{3,5},? )§\s?\d+(?:\.\d+)*/g) ?? [],
  },
  {
    what: 'ADR that does not exist',
    find: (text) =>
      [...text.matchAll(/\b(?:ADR[ -]?|decisions\/)(\d{4})\b/g)]
        .filter((match) => !adrs.has(match[1]))
        .map((match) => match[0]),
  },
  {
    what: 'author named by a letter',
    find: (text) =>
      text.match(
        /\b(?:(?:author|side|helper) [AB]|[AB] (?:asks|calls|provides|guarantees|retries|owns|sends|reads|writes|does))\b/g,
      ) ?? [],
  },
]

/** The comments of a source file, with the line each starts on. */
function commentsOf(path) {
  const text = readFileSync(path, 'utf8')
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false)
  const seen = new Set()
  const comments = []
  const collect = (ranges) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue
      seen.add(range.pos)
      const line = file.getLineAndCharacterOfPosition(range.pos).line + 1
      comments.push({ line, text: text.slice(range.pos, range.end) })
    }
  }
  // Every token's leading and trailing comments: tokens, not only nodes, so that a comment before
  // a closing brace is read too; the parser, not a scanner alone, so that `//` in a template is not.
  const visit = (node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()))
    collect(ts.getTrailingCommentRanges(text, node.getEnd()))
    for (const child of node.getChildren(file)) visit(child)
  }
  visit(file)
  return comments
}

const allowFile = join(root, 'scripts', 'comment-refs-allow.txt')
const allowed = new Set(
  existsSync(allowFile)
    ? readFileSync(allowFile, 'utf8')
        .split('\n')
        .map((line) => line.replace(/#.*/, '').trim())
        .filter(Boolean)
    : [],
)

const failing = []
const tolerated = []
for (const path of walk(join(root, 'src'), (name) => /\.[cm]?tsx?$/.test(name))) {
  const file = relative(root, path).split('\\').join('/')
  const problems = []
  for (const comment of commentsOf(path)) {
    comment.text.split('\n').forEach((text, index) => {
      for (const rule of rules) {
        for (const found of rule.find(text)) {
          problems.push(`line ${comment.line + index}: ${rule.what}: ${found}`)
        }
      }
    })
  }
  if (problems.length === 0) continue
  ;(allowed.has(file) ? tolerated : failing).push({ file, problems })
}

const report = (list) => {
  for (const { file, problems } of list) {
    console.error(`  ${file} (${problems.length})`)
    for (const problem of problems) console.error(`    ${problem}`)
  }
}
if (tolerated.length > 0) {
  console.error(
    `Comments pointing outside the repository in ${tolerated.length} files of scripts/comment-refs-allow.txt (tolerated until their owners rewrite them):`,
  )
  report(tolerated)
}
if (failing.length > 0) {
  console.error(
    'Comments pointing outside the repository (say the reason itself; docs/development.md › Comments):',
  )
  report(failing)
  process.exit(1)
}
console.log(
  `comment references: every checklist id, ADR and section a comment names is in the repository${
    tolerated.length > 0 ? ` (${tolerated.length} allow-listed files still to rewrite)` : ''
  }`,
)
