/**
 * A JSON value in canonical form (RFC 8785's ordering): object members sorted by their names'
 * UTF-16 code units, recursively; arrays in their order; primitives as `JSON.stringify` writes
 * them; no whitespace. Two bodies that differ only in member order or spacing have the same
 * form; any other difference changes it. Members whose value is `undefined` are left out, as
 * `JSON.stringify` leaves them out.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) {
    let text = '['
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += ','
      const item: unknown = value[index]
      text += item === undefined ? 'null' : canonicalJson(item)
    }
    return `${text}]`
  }
  // The default order compares UTF-16 code units, which is RFC 8785's order.
  const members = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  let text = '{'
  let first = true
  for (const [name, member] of members) {
    if (member === undefined || typeof member === 'function') continue
    if (!first) text += ','
    first = false
    text += `${JSON.stringify(name)}:${canonicalJson(member)}`
  }
  return `${text}}`
}

/**
 * Body members that cannot change the answer, left out of the key: how it is delivered
 * (`stream`, `stream_options`), who it is for (`user`, `safety_identifier`, `metadata`, which
 * carries Anthropic's `user_id`), and the vendor's own prompt-cache and storage hints
 * (`prompt_cache_key`, `prompt_cache_retention`, `store`). Any other member stays in the key,
 * unknown ones included.
 */
export const answerNeutralMembers: ReadonlySet<string> = new Set([
  'stream',
  'stream_options',
  'user',
  'safety_identifier',
  'metadata',
  'prompt_cache_key',
  'prompt_cache_retention',
  'store',
])

/** The body's top-level members less `answerNeutralMembers`, in canonical form. */
export function canonicalBody(body: unknown): string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return canonicalJson(body)
  // `fromEntries` defines own members, so a `__proto__` member stays a member.
  const kept = Object.entries(body).filter(([name]) => !answerNeutralMembers.has(name))
  return canonicalJson(Object.fromEntries(kept))
}
