import * as z from 'zod/mini'
import type { $ZodRawIssue } from 'zod/v4/core'
import en from 'zod/v4/locales/en.js'
import { findNearMisses, unrecognizedKeysMessage, type NearMisses } from './near-miss'

/**
 * zod's English messages. `zod/mini` loads no locale by itself; importing this one file (instead
 * of `zod/locales`, or classic `zod`, which loads every locale and registers English) keeps the
 * bundled core to the one it uses.
 */
const englishErrors = en().localeError

/**
 * Checks a config value against its schema, with English messages. They are passed to this parse
 * only, not set through `z.config()`, so the gateway never changes the messages of an
 * application's own zod schemas.
 *
 * An unknown field that is a near miss of a known one is named with it (`Unrecognized key:
 * "baseURL" (did you mean "baseUrl"?)`), and the known field is then not also reported missing:
 * renaming the one fixes both.
 */
export function checkConfig<T extends z.ZodMiniType>(
  schema: T,
  value: unknown,
): ReturnType<typeof z.safeParse<T>> {
  // The near misses of each object with unknown keys, by the object as it was given.
  const nearMisses = new Map<object, NearMisses>()
  const result = z.safeParse(schema, value, {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? unknownKeys(issue, nearMisses) : englishErrors(issue),
  })
  // zod builds the error, and so calls the error map, when it is first read.
  const issues = result.success ? [] : result.error.issues
  if (nearMisses.size > 0) {
    const missing = new Set<string>()
    for (const issue of issues) {
      if (issue.code !== 'unrecognized_keys') continue
      const object = valueAt(value, issue.path)
      const misses = typeof object === 'object' && object !== null && nearMisses.get(object)
      for (const near of misses ? misses.values() : []) missing.add(pathKey([...issue.path, near]))
    }
    // In place: `error.issues` is what every caller reads.
    const kept = issues.filter((issue) => !missing.has(pathKey(issue.path)))
    issues.splice(0, issues.length, ...kept)
  }
  return result
}

function unknownKeys(
  issue: $ZodRawIssue & { code: 'unrecognized_keys' },
  nearMisses: Map<object, NearMisses>,
): string {
  const shape = (issue.inst as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def
    ?.shape
  const object = issue.input
  if (shape === undefined || typeof object !== 'object' || object === null)
    return unrecognizedKeysMessage(issue.keys, new Map())
  const misses = findNearMisses(issue.keys, Object.keys(shape), object)
  if (misses.size > 0) nearMisses.set(object, misses)
  return unrecognizedKeysMessage(issue.keys, misses)
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value
  for (const part of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, part))
      return undefined
    current = (current as Record<PropertyKey, unknown>)[part] // lookup-safe: an own key (hasOwn)
  }
  return current
}

function pathKey(path: readonly PropertyKey[]): string {
  return JSON.stringify(path.map(String))
}
