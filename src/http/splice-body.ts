import { isJsonObject } from '../internal/json'
import { applyEdits, type TextEdit } from '../internal/json-members'
import type { ClientJson } from './client-json'

/**
 * The body an upstream gets on passthrough: the client's text with some top-level members set to
 * new values (replaced where they are, added at the front where they are missing), every other
 * byte kept — unknown fields, key order, number formatting. Every passthrough rewrite goes
 * through here (chat-completions, messages, count_tokens, Gemini).
 *
 * The splice is taken only when the text's top-level keys are exactly what `JSON.parse` read.
 * When a key is written twice, or spelled with escapes (`"mod\u0065l"`), the text and the parsed
 * object disagree about which member counts — and upstream parsers disagree too (most take the
 * last duplicate, some the first). Such a body is re-encoded from the parsed object, with the
 * changes applied, so the upstream reads exactly the request the gateway validated and routed,
 * whatever its parser does. This happens even when no member changes.
 *
 * @param changes the members to set; a value `undefined` leaves the member as it is
 */
export function spliceClientJson(
  json: ClientJson,
  changes: Readonly<Record<string, unknown>>,
): string {
  const object = isJsonObject(json.value) ? json.value : {}
  const members = json.members
  if (members === undefined || !members.keysAgree) return reencode(object, changes)
  const edits: TextEdit[] = []
  const added: string[] = []
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) continue
    const span = members.members.get(name)
    const encoded = JSON.stringify(value)
    // lookup-safe: the keys agree, so a member found in the text is an own member of the object
    const current = span === undefined ? undefined : object[name]
    if (span === undefined) added.push(`${JSON.stringify(name)}:${encoded}`)
    else if (!(typeof value === 'string' && current === value)) {
      edits.push({ start: span.valueStart, end: span.valueEnd, text: encoded })
    }
  }
  if (added.length > 0) {
    const insertAt = members.openBrace + 1
    const separator = members.members.size === 0 ? '' : ','
    edits.push({ start: insertAt, end: insertAt, text: added.join(',') + separator })
  }
  return edits.length === 0 ? json.text : applyEdits(json.text, edits)
}

function reencode(
  object: Record<string, unknown>,
  changes: Readonly<Record<string, unknown>>,
): string {
  // Spread copies own members as data properties, `__proto__` included, so nothing is lost.
  const body: Record<string, unknown> = { ...object }
  for (const [name, value] of Object.entries(changes)) {
    if (value !== undefined) Object.defineProperty(body, name, dataProperty(value))
  }
  return JSON.stringify(body)
}

function dataProperty(value: unknown): PropertyDescriptor {
  return { value, enumerable: true, writable: true, configurable: true }
}
