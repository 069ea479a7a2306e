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
  for (const limit of limits) visit(value, limit.path.split('.'), 0, '', limit.max)
}

function visit(value: unknown, steps: readonly string[], step: number, at: string, max: number) {
  if (step === steps.length) return
  const raw = steps[step]!
  const each = raw.endsWith('[]')
  const name = each ? raw.slice(0, -2) : raw
  if (!isJsonObject(value) || !Object.hasOwn(value, name)) return
  const item = value[name] // lookup-safe: checked own above
  const param = at === '' ? name : `${at}.${name}`
  if (!Array.isArray(item)) {
    visit(item, steps, step + 1, param, max)
    return
  }
  const last = step === steps.length - 1
  if (last && item.length > max) {
    throw new GatewayError(
      'invalid_request',
      `\`${param}\` holds ${item.length} items; the gateway accepts at most ${max}.`,
      { param },
    )
  }
  if (!each) return
  item.forEach((element, index) => visit(element, steps, step + 1, `${param}[${index}]`, max))
}
