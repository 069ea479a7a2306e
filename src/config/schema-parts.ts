import * as z from 'zod/mini'
import { checkConfig } from './check-config'

/** A whole number of at least 1. */
export const positiveInt = () => z.int().check(z.positive())

/** A whole number of 0 or more. */
export const nonNegativeInt = () => z.int().check(z.nonnegative())

/** Whether a plug-in object has the method `name` (its own, or inherited from a class). */
export const hasFunction = (value: unknown, name: string): boolean =>
  typeof value === 'object' &&
  value !== null &&
  // lookup-safe: plug-in objects may be class instances, whose methods are inherited
  typeof (value as Record<string, unknown>)[name] === 'function'

const alternativesOf = new WeakMap<object, readonly z.ZodMiniType[]>()

/**
 * The schemas a `oneOf` schema chooses among, for the JSON Schema generator
 * (`scripts/config-reference/`): zod sees a `oneOf` as a transform of `unknown`, which has no JSON
 * form of its own.
 */
export function oneOfAlternatives(schema: object): readonly z.ZodMiniType[] | undefined {
  return alternativesOf.get(schema)
}

/**
 * Checks a value against the one schema its shape calls for (`pick` returns one of `alternatives`,
 * or a message when no shape fits), so that an error names the field
 * (`models[1].profile.reasoning.min`) instead of zod's "no union member matched". The chosen
 * schema's issues are reported at their own paths.
 */
export function oneOf<T>(
  alternatives: readonly z.ZodMiniType[],
  pick: (value: unknown) => z.ZodMiniType<T> | string,
) {
  const schema = z.pipe(
    z.unknown(),
    z.transform((value: unknown, payload): T => {
      const chosen = pick(value)
      // On failure the value is passed on as written, not dropped: the checks across fields
      // (duplicate models, fallbacks) still run, and read it (the parse fails all the same).
      if (typeof chosen === 'string') {
        payload.issues.push({ code: 'custom', message: chosen, input: value })
        return value as T
      }
      const result = checkConfig(chosen, value)
      if (result.success) return result.data
      for (const issue of result.error.issues) {
        payload.issues.push({
          code: 'custom',
          message: issue.message,
          path: issue.path,
          input: value,
        })
      }
      return value as T
    }),
  )
  alternativesOf.set(schema, alternatives)
  return schema
}
