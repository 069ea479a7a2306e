/** Where one member of a top-level JSON object sits in its text: `[valueStart, valueEnd)`. */
export type MemberSpan = { valueStart: number; valueEnd: number }

/** The members of a top-level JSON object, and where the object's first member may be inserted. */
export type TopLevelMembers = {
  openBrace: number
  /** Keys as written in the text (escapes not decoded); the last of duplicates wins. */
  members: Map<string, MemberSpan>
  /**
   * True when the keys as written are exactly the keys `JSON.parse` reads: none is spelled with
   * an escape (`"mod\u0065l"`) and none is written twice. Only then may a member be spliced:
   * otherwise the text and the parsed object disagree about which member is `model`.
   */
  keysAgree: boolean
}

/** What one linear pass over a JSON text found. */
export type JsonScan = {
  /** The deepest nesting of objects and arrays, counted up to `maxDepth + 1`. */
  depth: number
  /** The top-level members, when the text is an object and `depth` stayed within the limit. */
  object: TopLevelMembers | undefined
}

const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * One pass over a JSON text, outside strings: how deep it nests, and where its top-level members
 * sit, so that a value can be replaced without re-encoding the rest (passthrough keeps the
 * client's bytes). Strings are skipped with `indexOf`, so the cost is close to one native scan of
 * the text; no recursion, so any depth is safe to measure. The pass stops as soon as the nesting
 * passes `maxDepth`.
 *
 * The text need not have been parsed yet; on text that is not JSON the result means nothing, and
 * `JSON.parse` reports the error.
 */
export function scanJson(text: string, maxDepth = Number.POSITIVE_INFINITY): JsonScan {
  const members = new Map<string, MemberSpan>()
  let keysAgree = true
  let openBrace = -1
  let depth = 0
  let deepest = 0
  let expectingKey = false
  let key: string | undefined
  let valueStart = -1
  let object: TopLevelMembers | undefined
  const finishMember = (end: number) => {
    if (key !== undefined && valueStart >= 0) {
      let valueEnd = end
      while (valueEnd > valueStart && isWhitespace(text.charCodeAt(valueEnd - 1))) valueEnd -= 1
      members.set(key, { valueStart, valueEnd })
    }
    key = undefined
    valueStart = -1
  }
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index)
    if (code === QUOTE) {
      const end = stringEnd(text, index)
      if (end < 0) break
      if (depth === 1 && expectingKey && openBrace >= 0) {
        key = text.slice(index + 1, end)
        if (members.has(key) || key.includes('\\')) keysAgree = false
        expectingKey = false
      } else if (depth === 1 && valueStart < 0) {
        valueStart = index
      }
      index = end
    } else if (code === 0x7b || code === 0x5b) {
      if (depth === 0 && code === 0x7b) {
        openBrace = index
        expectingKey = true
      } else if (depth === 1 && valueStart < 0) {
        valueStart = index
      }
      depth += 1
      if (depth > deepest) {
        deepest = depth
        if (deepest > maxDepth) return { depth: deepest, object: undefined }
      }
    } else if (code === 0x7d || code === 0x5d) {
      depth -= 1
      if (depth === 0 && openBrace >= 0 && object === undefined) {
        finishMember(index)
        object = { openBrace, members, keysAgree }
      }
    } else if (code === 0x2c && depth === 1) {
      finishMember(index)
      expectingKey = true
    } else if (code !== 0x3a && !isWhitespace(code) && depth === 1 && valueStart < 0) {
      valueStart = index
    }
  }
  return { depth: deepest, object }
}

/**
 * Finds the top-level members of a JSON object text that `JSON.parse` has already accepted.
 * Keys are matched as written: a key spelled with escapes is found only under its escaped
 * spelling. As with `JSON.parse`, the last of duplicate keys wins.
 *
 * @returns `undefined` when the text is not an object
 */
export function findTopLevelMembers(text: string): TopLevelMembers | undefined {
  return scanJson(text).object
}

function stringEnd(text: string, quote: number): number {
  let from = quote + 1
  for (;;) {
    const next = text.indexOf('"', from)
    if (next < 0) return -1
    let backslashes = 0
    while (text.charCodeAt(next - 1 - backslashes) === BACKSLASH) backslashes += 1
    if (backslashes % 2 === 0) return next
    from = next + 1
  }
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09
}

/** One replacement of `[start, end)` in a text. */
export type TextEdit = { start: number; end: number; text: string }

/** Applies non-overlapping edits to a text. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const ordered = [...edits].sort((left, right) => left.start - right.start)
  let result = ''
  let cursor = 0
  for (const edit of ordered) {
    result += text.slice(cursor, edit.start) + edit.text
    cursor = edit.end
  }
  return result + text.slice(cursor)
}
