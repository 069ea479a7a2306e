import { isJsonObject, parseJson } from './json'
import { scanJson, type TopLevelMembers } from './json-members'

const QUOTE = 0x22
const BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const COLON = 0x3a
const COMMA = 0x2c
const BACKSLASH = 0x5c

/**
 * A JSON object text with the string member at `path` (`['model']`, `['message', 'model']`) set
 * to `value`, every other byte kept: the member's value is spliced in place, so an upstream's
 * answer keeps its key order, spacing and number formatting. Only a member that is there and holds
 * a string is changed; anything else returns the text as it is.
 *
 * When the keys as written are not the keys `JSON.parse` reads (a key written twice, or spelled
 * with escapes: `"mod\u0065l"`), the text and a client's parser disagree about which member
 * counts; such a text is re-encoded from the parsed object, with the member set.
 */
export function setStringMember(text: string, path: readonly string[], value: string): string {
  const encoded = JSON.stringify(value)
  if (path.length === 1) {
    const quick = spliceFirstMember(text, path[0]!, encoded)
    if (quick !== undefined) return quick
  }
  return spliceMember(text, path, encoded) ?? reencode(text, path, value)
}

/**
 * An escape that spells a lower-case ASCII letter (`\u006d` is `m`): the only way a key written
 * differently can read as a name made of them. Other escapes (`\n`, `\u4e2d`) cannot.
 */
const letterEscape = /\\u00[67][0-9a-f]/i

/**
 * The common case, cheaply (a stream chunk names its model near its start): the name is written
 * once, plainly, as a key of the top-level object. Native searches rule out a second spelling, and
 * only the text before the key is walked, to see that it is a top-level key. `undefined` when that
 * cannot be shown: the full scan decides.
 */
function spliceFirstMember(text: string, name: string, encoded: string): string | undefined {
  const span = firstMemberSpan(text, quotedSearch(name))
  if (span === undefined) return undefined
  if (span === 'not-a-string') return text
  if (text.slice(span.valueStart, span.valueEnd) === encoded) return text
  return text.slice(0, span.valueStart) + encoded + text.slice(span.valueEnd)
}

/** A search for a quoted name, `"model"`. */
type QuotedSearch = { length: number; indexIn(text: string, from: number): number }

/**
 * `text.indexOf('"name"', from)`, searched by `name"`: V8 looks for a pattern's first character
 * first, and in JSON `"` is everywhere, so each one found is a comparison; a letter is rarer.
 */
export function quotedSearch(name: string): QuotedSearch {
  const tail = `${name}"`
  return {
    length: name.length + 2,
    indexIn(text, from) {
      for (let at = text.indexOf(tail, from + 1); at >= 0; at = text.indexOf(tail, at + 1)) {
        if (text.charCodeAt(at - 1) === QUOTE) return at - 1
      }
      return -1
    },
  }
}

/** Where a top-level member's key ends and its string value starts and ends (past its quote). */
type MemberSpan = { keyEnd: number; valueStart: number; valueEnd: number }

/**
 * The span of the member `key` (quoted) when `spliceFirstMember` may splice it: written once,
 * plainly, as a key of the top-level object, no key spelled with letter escapes anywhere;
 * `not-a-string` when its value is not a string (nothing to set); `undefined` when that cannot be
 * shown cheaply.
 */
function firstMemberSpan(text: string, key: QuotedSearch): MemberSpan | 'not-a-string' | undefined {
  const at = key.indexIn(text, 0)
  if (at < 0 || key.indexIn(text, at + key.length) >= 0) return undefined
  if (text.includes('\\u') && letterEscape.test(text)) return undefined
  if (!isTopLevelKey(text, at)) return undefined
  let index = at + key.length
  while (isWhitespace(text.charCodeAt(index))) index += 1
  if (text.charCodeAt(index) !== COLON) return undefined
  index += 1
  while (isWhitespace(text.charCodeAt(index))) index += 1
  if (text.charCodeAt(index) !== QUOTE) return 'not-a-string'
  const end = stringEnd(text, index)
  if (end < 0) return undefined
  return { keyEnd: at + key.length, valueStart: index, valueEnd: end + 1 }
}

/**
 * `setStringMember(text, [name], value)` for the events of one stream, which begin alike: an
 * OpenAI chunk repeats `{"id":…,"object":…,"created":…,"model":…` before what changes. The text
 * up to the member's value is checked once (a top-level key, nothing before it that could hide a
 * second spelling) and kept; an event that starts with exactly that text is then spliced with the
 * checks that look past it only — a second key, a letter escape — instead of walking it again.
 * The result is `setStringMember`'s, byte for byte (property-tested).
 */
export function createMemberSplice(name: string, value: string): (text: string) => string {
  const key = quotedSearch(name)
  const encoded = JSON.stringify(value)
  /** The last event's text up to its member's value, the key's end in it, and that text spliced. */
  let seen: { prefix: string; keyEnd: number; spliced: string } | undefined
  return (text) => {
    if (
      seen !== undefined &&
      // Not `startsWith`: V8's costs ~9 ns a character (~1 µs for an OpenAI chunk's prefix), a
      // slice and `===` compare whole words.
      text.slice(0, seen.prefix.length) === seen.prefix &&
      key.indexIn(text, seen.keyEnd) < 0 &&
      !(text.includes('\\u') && letterEscape.test(text))
    ) {
      return seen.spliced === seen.prefix ? text : seen.spliced + text.slice(seen.prefix.length)
    }
    const span = firstMemberSpan(text, key)
    if (span === undefined || span === 'not-a-string') {
      seen = undefined
      return setStringMember(text, [name], value)
    }
    const prefix = text.slice(0, span.valueEnd)
    const same = text.slice(span.valueStart, span.valueEnd) === encoded
    seen = {
      prefix,
      keyEnd: span.keyEnd,
      spliced: same ? prefix : text.slice(0, span.valueStart) + encoded,
    }
    return same ? text : seen.spliced + text.slice(span.valueEnd)
  }
}

/** Whether the string at `at` is a key of the top-level object: depth 1, after `{` or `,`. */
function isTopLevelKey(text: string, at: number): boolean {
  let depth = 0
  let last = -1
  let outer = -1
  for (let index = 0; index < at; index += 1) {
    const code = text.charCodeAt(index)
    if (code === QUOTE) {
      index = stringEnd(text, index)
      if (index < 0 || index >= at) return false
      last = QUOTE
    } else if (code === BRACE || code === BRACKET) {
      if (depth === 0) outer = code
      depth += 1
      last = code
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1
      last = code
    } else if (!isWhitespace(code)) {
      last = code
    }
  }
  return outer === BRACE && depth === 1 && (last === BRACE || last === COMMA)
}

/** The index of the quote that closes the string opening at `quote`, or -1. */
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

/**
 * `setStringMember` for a top-level member of a text already scanned (`scanJson`), whose keys
 * agree with `JSON.parse`'s: `encoded` is the new value as JSON (`JSON.stringify(value)`).
 */
export function spliceStringMember(
  text: string,
  members: TopLevelMembers,
  name: string,
  encoded: string,
): string {
  const span = members.members.get(name)
  if (span === undefined || text.charCodeAt(span.valueStart) !== QUOTE) return text
  if (text.slice(span.valueStart, span.valueEnd) === encoded) return text
  return text.slice(0, span.valueStart) + encoded + text.slice(span.valueEnd)
}

/** The text with the member spliced, or `undefined` when only a re-encoding can set it. */
function spliceMember(text: string, path: readonly string[], encoded: string): string | undefined {
  const object = scanJson(text).object
  if (object === undefined) return text
  if (!object.keysAgree) return undefined
  if (path.length === 1) return spliceStringMember(text, object, path[0]!, encoded)
  const span = object.members.get(path[0]!)
  if (span === undefined || text.charCodeAt(span.valueStart) !== BRACE) return text
  const before = text.slice(0, span.valueStart)
  const after = text.slice(span.valueEnd)
  const inner = text.slice(span.valueStart, span.valueEnd)
  const changed = spliceMember(inner, path.slice(1), encoded)
  if (changed === undefined) return undefined
  return changed === inner ? text : before + changed + after
}

function reencode(text: string, path: readonly string[], value: string): string {
  const parsed = parseJson(text)
  if (!parsed.ok || !isJsonObject(parsed.value)) return text
  let holder: Record<string, unknown> = parsed.value
  for (const name of path.slice(0, -1)) {
    const next = Object.hasOwn(holder, name) ? holder[name] : undefined // lookup-safe: own member
    if (!isJsonObject(next)) return text
    holder = next
  }
  const last = path[path.length - 1]!
  // lookup-safe: own member
  if (!Object.hasOwn(holder, last) || typeof holder[last] !== 'string') return text
  Object.defineProperty(holder, last, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  })
  return JSON.stringify(parsed.value)
}
