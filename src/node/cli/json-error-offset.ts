const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d])
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u'])
const LITERALS = new Map([
  ['t', 'true'],
  ['f', 'false'],
  ['n', 'null'],
])
const OBJECT = 1
const ARRAY = 2

/**
 * Where a JSON text (RFC 8259, as `JSON.parse` reads it) first goes wrong: the offset of the first
 * character that cannot continue it, or the text's length when it ends too soon; `undefined` when
 * it is valid. `JSON.parse` names the position of most errors but not all ("Unexpected token 'x'",
 * "Unexpected end of JSON input"), and only Node 22+ names the line; the CLI needs both for every
 * error. One pass, no recursion: any nesting is safe.
 */
export function jsonErrorOffset(text: string): number | undefined {
  const containers: number[] = []
  let index = skipWhitespace(text, 0)
  for (;;) {
    // A value starts at `index`.
    const char = text[index]
    if (char === '{' || char === '[') {
      index = skipWhitespace(text, index + 1)
      if (text[index] === (char === '{' ? '}' : ']')) {
        index += 1
      } else {
        containers.push(char === '{' ? OBJECT : ARRAY)
        if (char === '{') {
          const afterKey = memberKey(text, index)
          if (afterKey < 0) return -afterKey - 1
          index = afterKey
        }
        continue
      }
    } else if (char === '"') {
      const end = stringEnd(text, index)
      if (end < 0) return -end - 1
      index = end
    } else if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) {
      index = numberEnd(text, index)
      if (index < 0) return -index - 1
    } else if (char !== undefined && LITERALS.has(char)) {
      const word = LITERALS.get(char)!
      for (let at = 0; at < word.length; at += 1)
        if (text[index + at] !== word[at]) return index + at
      index += word.length
    } else {
      return index
    }
    // After a value: close containers, or go on to the next member or element.
    for (;;) {
      index = skipWhitespace(text, index)
      const container = containers.at(-1)
      if (container === undefined) return index === text.length ? undefined : index
      const next = text[index]
      if (next === ',') {
        index = skipWhitespace(text, index + 1)
        if (container === OBJECT) {
          const afterKey = memberKey(text, index)
          if (afterKey < 0) return -afterKey - 1
          index = afterKey
        }
        break
      }
      if (next !== (container === OBJECT ? '}' : ']')) return index
      containers.pop()
      index += 1
    }
  }
}

function skipWhitespace(text: string, from: number): number {
  let index = from
  while (index < text.length && WHITESPACE.has(text.charCodeAt(index))) index += 1
  return index
}

/** A member's key and colon at `index`: the offset of its value, or `-(error offset) - 1`. */
function memberKey(text: string, index: number): number {
  if (text[index] !== '"') return -index - 1
  const end = stringEnd(text, index)
  if (end < 0) return end
  const colon = skipWhitespace(text, end)
  if (text[colon] !== ':') return -colon - 1
  return skipWhitespace(text, colon + 1)
}

/** The offset after the string opened at `quote`, or `-(error offset) - 1`. */
function stringEnd(text: string, quote: number): number {
  let index = quote + 1
  while (index < text.length) {
    const code = text.charCodeAt(index)
    if (code === 0x22) return index + 1
    if (code < 0x20) return -index - 1
    if (code === 0x5c) {
      const escape = text[index + 1]
      if (escape === undefined) return -(index + 1) - 1
      if (!ESCAPES.has(escape)) return -(index + 1) - 1
      if (escape === 'u') {
        for (let at = index + 2; at < index + 6; at += 1)
          if (!/[0-9a-fA-F]/.test(text[at] ?? '')) return -at - 1
        index += 6
        continue
      }
      index += 2
      continue
    }
    index += 1
  }
  return -text.length - 1
}

/** The offset after the number at `start`, or `-(error offset) - 1`. */
function numberEnd(text: string, start: number): number {
  let index = start
  if (text[index] === '-') index += 1
  if (text[index] === '0') index += 1
  else if (!isDigit(text[index])) return -index - 1
  else while (isDigit(text[index])) index += 1
  if (text[index] === '.') {
    index += 1
    if (!isDigit(text[index])) return -index - 1
    while (isDigit(text[index])) index += 1
  }
  if (text[index] === 'e' || text[index] === 'E') {
    index += 1
    if (text[index] === '+' || text[index] === '-') index += 1
    if (!isDigit(text[index])) return -index - 1
    while (isDigit(text[index])) index += 1
  }
  return index
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9'
}
