import { GatewayError } from '../errors'
import { isJsonObject } from '../internal/json'

/**
 * A cap on one array of a request body. `path` names it by its members, `[]` standing for every
 * item of an array on the way: `messages[].content` is the content of each message.
 */
export type ArrayLimit = { path: string; max: number }

/**
 * Refuses, with a 400 naming the field, a body whose arrays are longer than their caps. Runs on
 * the parsed value before schema validation: it visits only the arrays on the limits' paths, so
 * its cost is linear in their lengths and no oversized array is ever validated item by item.
 */
export function checkArrayLimits(value: unknown, limits: readonly ArrayLimit[]): void {
  for (const limit of limits) visit(value, stepsOf(limit.path), 0, undefined, limit.max)
}

/** One member on a limit's path; `each` when it stands for every item of an array (`name[]`). */
type Step = { name: string; each: boolean }

/** Each path's steps, parsed once: the limits are a handful of constants per route. */
const parsedPaths = new Map<string, readonly Step[]>()

function stepsOf(path: string): readonly Step[] {
  let steps = parsedPaths.get(path)
  if (steps === undefined) {
    steps = path.split('.').map((raw) => {
      const each = raw.endsWith('[]')
      return { name: each ? raw.slice(0, -2) : raw, each }
    })
    parsedPaths.set(path, steps)
  }
  return steps
}

/**
 * Where the walk is, for the error's `param` (`messages[3].content`): a chain built only when an
 * array is too long, not a string per member visited.
 */
type At = { parent: At | undefined; name: string; index: number | undefined }

function paramOf(at: At | undefined): string {
  if (at === undefined) return ''
  const parent = paramOf(at.parent)
  const own = parent === '' ? at.name : `${parent}.${at.name}`
  return at.index === undefined ? own : `${own}[${at.index}]`
}

function visit(
  value: unknown,
  steps: readonly Step[],
  step: number,
  at: At | undefined,
  max: number,
): void {
  if (step === steps.length) return
  const { name, each } = steps[step]!
  if (!isJsonObject(value) || !Object.hasOwn(value, name)) return
  const item = value[name] // lookup-safe: checked own above
  if (!Array.isArray(item)) {
    visit(item, steps, step + 1, { parent: at, name, index: undefined }, max)
    return
  }
  const last = step === steps.length - 1
  if (last && item.length > max) {
    const param = paramOf({ parent: at, name, index: undefined })
    throw new GatewayError(
      'invalid_request',
      `\`${param}\` holds ${item.length} items; the gateway accepts at most ${max}.`,
      { param },
    )
  }
  if (!each || last) return
  for (let index = 0; index < item.length; index += 1) {
    visit(item[index], steps, step + 1, { parent: at, name, index }, max)
  }
}
