/** Where one member of a top-level JSON object sits in its text: `[valueStart, valueEnd)`. */
export type MemberSpan = { valueStart: number; valueEnd: number }

/** The members of a top-level JSON object, and where the object's first member may be inserted. */
export type TopLevelMembers = { openBrace: number; members: Map<string, MemberSpan> }

const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * Finds the top-level members of a JSON object text that `JSON.parse` has already accepted, so that
 * one value can be replaced without re-encoding the rest (passthrough keeps the client's bytes).
 * Strings are skipped with `indexOf`, so the cost is close to one native scan of the text. Keys are
 * matched as written: a key spelled with escapes is not found, and the caller falls back to
 * re-encoding. As with `JSON.parse`, the last of duplicate keys wins.
 *
 * @returns `undefined` when the text is not an object
 */
export function findTopLevelMembers(text: string): TopLevelMembers | undefined {
  const members = new Map<string, MemberSpan>()
  let openBrace = -1
  let depth = 0
  let expectingKey = false
  let key: string | undefined
  let valueStart = -1
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
      if (end < 0) return undefined
      if (depth === 1 && expectingKey) {
        key = text.slice(index + 1, end)
        expectingKey = false
      } else if (depth === 1 && valueStart < 0) {
        valueStart = index
      }
      index = end
    } else if (code === 0x7b || code === 0x5b) {
      if (depth === 0) {
        if (code !== 0x7b) return undefined
        openBrace = index
        expectingKey = true
      } else if (depth === 1 && valueStart < 0) {
        valueStart = index
      }
      depth += 1
    } else if (code === 0x7d || code === 0x5d) {
      depth -= 1
      if (depth === 0) {
        finishMember(index)
        return { openBrace, members }
      }
    } else if (code === 0x2c && depth === 1) {
      finishMember(index)
      expectingKey = true
    } else if (code !== 0x3a && !isWhitespace(code) && depth === 1 && valueStart < 0) {
      valueStart = index
    }
  }
  return undefined
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
