/** The outcome of parsing JSON text: never throws. */
export type JsonResult = { ok: true; value: unknown } | { ok: false; error: Error }

/**
 * Parses JSON text into a result object. The one `JSON.parse` of `src/`, so that no caller can
 * forget that client and upstream text may be malformed.
 */
export function parseJson(text: string): JsonResult {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (error) {
    // lookup-safe: JSON.parse throws only SyntaxError (and RangeError); never client data
    return { ok: false, error: error instanceof Error ? error : new Error(String(error)) }
  }
}

/** A finite number read from JSON, or `undefined` for anything else (never a silent zero). */
export function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A JSON value as text, for fields that should hold a string: a string as it is, a number or a
 * boolean as `String` writes it, `null` and a missing value as `''`, an object or array as its
 * JSON. Never `String(value)` on parsed JSON: an object with its own non-function `toString` and
 * `valueOf` members (`{"toString":1}`) makes `String` throw.
 */
export function stringOf(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (value === null || value === undefined) return ''
  return JSON.stringify(value) ?? ''
}
