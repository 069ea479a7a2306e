import type { z } from 'zod'
import { GatewayError } from '../errors'
import { parseJson } from '../internal/json'

/**
 * Parses a JSON body and validates it with a zod schema. Malformed JSON and a bad field get a 400
 * whose message (and `param`) names the field, such as `messages[0].role`.
 */
export function parseJsonBody<Schema extends z.ZodType>(
  text: string,
  schema: Schema,
): z.output<Schema> {
  const parsed = parseJson(text)
  if (!parsed.ok) {
    throw new GatewayError(
      'invalid_request',
      `The request body is not valid JSON: ${parsed.error.message}`,
    )
  }
  const result = schema.safeParse(parsed.value)
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
