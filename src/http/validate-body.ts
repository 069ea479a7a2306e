import type { z } from 'zod'
import { GatewayError } from '../errors'
import { checkArrayLimits, type ArrayLimit } from './array-limits'

/**
 * Validates a parsed body with a zod schema, after checking the lengths of the arrays the
 * gateway walks (`limits`), so that the work validation does stays bounded and linear. A bad
 * field gets a 400 whose message (and `param`) names it, such as `messages[0].role`.
 */
export function validateBody<Schema extends z.ZodType>(
  value: unknown,
  schema: Schema,
  limits: readonly ArrayLimit[],
): z.output<Schema> {
  checkArrayLimits(value, limits)
  const result = schema.safeParse(value)
  if (result.success) return result.data
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
