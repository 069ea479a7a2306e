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
