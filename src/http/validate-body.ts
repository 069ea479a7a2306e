import { GatewayError } from '../errors'
import { checkArrayLimits, type ArrayLimit } from './array-limits'
import type { Infer, Shape } from './body-shape'

/**
 * Validates a parsed body against its shape, after checking the lengths of the arrays the gateway
 * walks (`limits`), so that the work validation does stays bounded and linear. A bad field gets a
 * 400 whose message (and `param`) names it, such as `messages[0].role`. The body that fits is
 * returned as it is, not copied.
 */
export function validateBody<S extends Shape<unknown>>(
  value: unknown,
  schema: S,
  limits: readonly ArrayLimit[],
): Infer<S> {
  checkArrayLimits(value, limits)
  const result = schema.safeParse(value)
  if (result.success) return result.data as Infer<S>
  const issue = result.error.issues[0]!
  const param = issue.path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
    )
    .join('')
  const field = param === '' ? 'the request body' : `\`${param}\``
  throw new GatewayError('invalid_request', `Invalid ${field}: ${issue.message}`, {
    param: param === '' ? undefined : param,
  })
}
