/**
 * What may not stand bare in a log field: controls (C0, DEL and C1, among them CR, LF and the ESC
 * that starts ANSI sequences), format characters (bidi overrides that reorder what a terminal
 * shows), every separator, the plain space included (U+2028 and U+2029 end lines in some viewers; a
 * space would let a value pass for the next `name=value` field), lone surrogates, unassigned code
 * points, and the quote and backslash that delimit a quoted field.
 */
const needsQuotes = /[\p{C}\p{Z}"\\]/u

/**
 * Visible ASCII but the quote and backslash, and the `…` of a masked key: what nearly every field
 * is. Tested first, since a class of Unicode properties costs several times more per character.
 */
const plainAscii = /^[!#-[\]-~…]+$/

/** Inside quotes, the same set but the plain space, which is then harmless and easier to read. */
const escapable = /[\p{C}"\\]|[^\P{Z} ]/gu

const shortEscapes = new Map([
  ['"', '\\"'],
  ['\\', '\\\\'],
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t'],
])

/**
 * One field of a log line, safe to interpolate: returned as it is when it holds only visible
 * characters (letters of any script and punctuation such as the `…` of a masked key stay
 * readable), else quoted, with every control, format or separator character escaped as `\uXXXX`.
 * Client-controlled text (a model name, a path, a key's last characters) can then never forge a
 * line, a field or a terminal escape sequence.
 *
 * @example
 * logField('gpt-4o') // gpt-4o
 * logField('x\n2025-01-01T00:00:00Z req_1 200') // "x\n2025-01-01T00:00:00Z req_1 200", on one line
 */
export function logField(value: string): string {
  if (plainAscii.test(value)) return value
  if (value !== '' && !needsQuotes.test(value)) return value
  return `"${value.replace(escapable, escapeCharacter)}"`
}

function escapeCharacter(character: string): string {
  const short = shortEscapes.get(character)
  if (short !== undefined) return short
  const code = character.codePointAt(0)!
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`
}
