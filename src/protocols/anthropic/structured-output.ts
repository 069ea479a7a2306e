import { jsonInstruction } from '../../canonical/json-instruction'
import type { ChatRequest } from '../../canonical/types'
import { isJsonObject } from '../../internal/json'
import type { ModelProfile } from '../../models/profile'

/** The name of the forced tool that carries a JSON answer, before any collision suffix. */
const jsonToolBase = 'json_answer'

/**
 * Schema keywords Anthropic's structured output refuses ("For 'integer' type, property
 * 'minimum' is not supported"); they are removed, and the client validates the answer as the
 * official SDKs do.
 *
 * @see https://platform.claude.com/docs/en/build-with-claude/structured-outputs
 */
const unsupported = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'pattern',
  'format',
  '$schema',
])

/**
 * The name of the forced tool that carries the JSON answer of `request` to a model without
 * native structured output, or `undefined` when the request does not go that way. The
 * response decoders call it with the same request to turn the tool's input back into text.
 */
export function anthropicJsonTool(request: ChatRequest, profile: ModelProfile): string | undefined {
  const format = request.responseFormat
  if (format?.type !== 'json' || format.schema === undefined || profile.structuredOutput !== 'tool')
    return undefined
  const taken = new Set((request.tools ?? []).map((tool) => tool.name))
  let name = jsonToolBase
  for (let suffix = 1; taken.has(name); suffix += 1) name = `${jsonToolBase}_${suffix}`
  return name
}

/** How a JSON answer goes into a messages body. */
export type AnthropicStructuredOutput =
  | { kind: 'format'; format: { type: 'json_schema'; schema: Record<string, unknown> } }
  | { kind: 'tool'; tool: Record<string, unknown>; name: string }
  | { kind: 'instruction'; text: string }

/**
 * A JSON answer in the form the model takes: `output_config.format` where the
 * model constrains output natively; else a forced single tool whose input is the answer; else
 * (no schema, or a model with neither) a system instruction.
 */
export function anthropicStructuredOutput(
  request: ChatRequest,
  profile: ModelProfile,
): AnthropicStructuredOutput | undefined {
  const format = request.responseFormat
  if (format?.type !== 'json') return undefined
  if (format.schema !== undefined && profile.structuredOutput === 'schema')
    return {
      kind: 'format',
      format: { type: 'json_schema', schema: toAnthropicSchema(format.schema) },
    }
  const name = anthropicJsonTool(request, profile)
  if (name !== undefined && format.schema !== undefined) {
    return {
      kind: 'tool',
      name,
      tool: {
        name,
        description:
          format.description ??
          'Give the answer by calling this tool once; its input is the whole answer.',
        input_schema: format.schema,
      },
    }
  }
  return { kind: 'instruction', text: jsonInstruction(format) }
}

/**
 * A JSON Schema in the subset Anthropic's structured output accepts: every object closed with
 * `additionalProperties: false`, the bounds it refuses removed. Property names are the user's and
 * always kept.
 */
export function toAnthropicSchema(schema: Record<string, unknown>): Record<string, unknown> {
  // Entries, then `Object.fromEntries`: a key such as `__proto__` stays an ordinary property.
  const entries: Array<[string, unknown]> = []
  for (const [key, value] of Object.entries(schema)) {
    if (unsupported.has(key) || key === 'additionalProperties') continue
    if ((key === 'properties' || key === '$defs' || key === 'definitions') && isJsonObject(value)) {
      entries.push([
        key,
        Object.fromEntries(
          Object.entries(value).map(([name, sub]) => [
            name,
            isJsonObject(sub) ? toAnthropicSchema(sub) : sub,
          ]),
        ),
      ])
    } else if (key === 'items' || key === 'not') {
      entries.push([key, isJsonObject(value) ? toAnthropicSchema(value) : value])
    } else if (
      (key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'prefixItems') &&
      Array.isArray(value)
    ) {
      entries.push([key, value.map((sub) => (isJsonObject(sub) ? toAnthropicSchema(sub) : sub))])
    } else {
      entries.push([key, value])
    }
  }
  const out = Object.fromEntries(entries)
  const type = out['type']
  const isObject = type === 'object' || (Array.isArray(type) && type.includes('object'))
  // Anthropic requires every object closed; an open map (`additionalProperties: {…}`) cannot be
  // expressed and is closed too.
  if (isObject || isJsonObject(out['properties'])) out['additionalProperties'] = false
  return out
}
