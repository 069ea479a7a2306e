/** A path into a body: member names and array indexes. */
export type ShapePath = Array<string | number>

/** Why a body does not fit its shape: where, and a sentence saying what was expected. */
export type ShapeIssue = { path: ShapePath; message: string }

/** An issue at the value itself; its path grows as it bubbles up (`prefixed`). */
export function issue(message: string): ShapeIssue {
  return { path: [], message }
}

/** The issue, its path now starting at `key` (changed in place: issues are fresh). */
export function prefixed(key: string | number, found: ShapeIssue): ShapeIssue {
  found.path.unshift(key)
  return found
}

/** Issues about a value's own type, which a union passes over for one about its content. */
export const wrongType = new WeakSet<ShapeIssue>()

/** An issue about the value's type, as zod words it, marked as such (`wrongType`). */
export function typeIssue(expected: string, value: unknown): ShapeIssue {
  const found = issue(`Invalid input: expected ${expected}, received ${kindOf(value)}`)
  wrongType.add(found)
  return found
}

/** The JSON type of a value as zod names it: `null`, `array`, or its `typeof`. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}
