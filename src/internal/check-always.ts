/**
 * The `when` of a zod refinement that must run even when the object's fields failed their own
 * checks (zod skips refinements then by default), so that one pass reports every problem of a
 * config. Such a refinement reads fields that may be missing or of the wrong type, and must allow
 * for it: their problem is reported by their own check.
 */
export const checkAlways = (payload: { value: unknown }): boolean =>
  typeof payload.value === 'object' && payload.value !== null
