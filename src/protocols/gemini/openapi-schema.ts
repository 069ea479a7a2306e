import { isJsonObject } from '../../internal/json'

/** Schema fields that Gemini's proto JSON may send as decimal strings (they are int64). */
const integerFields = new Set([
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
])

/**
 * A Gemini OpenAPI-subset `Schema` (tool `parameters`, `responseSchema`) → JSON Schema for OpenAI
 * and Anthropic (TOOL-D-07, JSON-05):
 * - upper-case types (`"OBJECT"`, `"STRING"`) become lower-case;
 * - `nullable: true` becomes `type: [T, "null"]`, or a `{type: "null"}` branch of an `anyOf`;
 * - `propertyOrdering` (Gemini's own output-order hint) is dropped;
 * - int64 limits sent as strings (`"minItems": "1"`) become numbers.
 * Property names under `properties` are user data and kept as they are.
 *
 * @see https://ai.google.dev/api/caching#Schema
 */
export function openApiToJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  // Built with Object.fromEntries: a keyword named `__proto__` stays an own member.
  const entries: Array<[string, unknown]> = []
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'propertyOrdering') continue
    if (key === 'type' && typeof value === 'string') entries.push([key, value.toLowerCase()])
    else if (key === 'properties' && isJsonObject(value)) {
      entries.push([
        key,
        Object.fromEntries(
          Object.entries(value).map(([name, property]) => [name, convert(property)]),
        ),
      ])
    } else if (key === 'items') entries.push([key, convert(value)])
    else if (key === 'anyOf' && Array.isArray(value)) entries.push([key, value.map(convert)])
    else if (integerFields.has(key) && typeof value === 'string' && /^\d+$/.test(value))
      entries.push([key, Number(value)])
    else entries.push([key, value])
  }
  const out = Object.fromEntries(entries)
  if (schema['nullable'] === true) {
    const type = Object.hasOwn(out, 'type') ? out['type'] : undefined
    const anyOf = Object.hasOwn(out, 'anyOf') ? out['anyOf'] : undefined
    if (typeof type === 'string') out['type'] = [type, 'null']
    else if (Array.isArray(anyOf)) out['anyOf'] = [...anyOf, { type: 'null' }]
  }
  return out
}

function convert(value: unknown): unknown {
  return isJsonObject(value) ? openApiToJsonSchema(value) : value
}
