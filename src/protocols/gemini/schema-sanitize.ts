import { isJsonObject } from '../../internal/json'

/**
 * The JSON Schema keywords Gemini documents for `parametersJsonSchema` and `responseJsonSchema`.
 * `additionalProperties` is in Google's list, yet Claude Code tool schemas carrying it were
 * answered with 400 "Unknown name", so it is left out.
 *
 * @see https://ai.google.dev/api/caching#FunctionDeclaration
 */
const allowed = new Set([
  '$id',
  '$defs',
  '$ref',
  '$anchor',
  'type',
  'format',
  'title',
  'description',
  'enum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'anyOf',
  'oneOf',
  'properties',
  'required',
  'propertyOrdering',
])

/** Keywords whose value maps names to schemas: the names are the user's and always kept. */
const schemaMaps = new Set(['properties', '$defs'])

/** Keywords whose value is one schema or an array of schemas. */
const subschemas = new Set(['items', 'prefixItems', 'anyOf', 'oneOf'])

/**
 * A JSON Schema reduced to the subset Gemini accepts (TOOL-D-04):
 * - keywords outside the allowlist are dropped, recursively (`$schema`, `additionalProperties`,
 *   `exclusiveMinimum`, `propertyNames`, `pattern`, `default`, …);
 * - `const` becomes a one-value `enum`, which Gemini accepts and which keeps the constraint;
 * - draft-07 `definitions` become `$defs`, and `$ref`s to them are rewritten;
 * - property names are never dropped, so a property literally named `const` survives.
 *
 * @see https://ai.google.dev/api/caching#FunctionDeclaration
 */
export function toGeminiJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return sanitize(schema)
}

function sanitize(schema: Record<string, unknown>): Record<string, unknown> {
  const entries: Array<[string, unknown]> = []
  for (const [rawKey, value] of Object.entries(schema)) {
    const key = rawKey === 'definitions' && !Object.hasOwn(schema, '$defs') ? '$defs' : rawKey
    if (key === 'const' && !Object.hasOwn(schema, 'enum')) entries.push(['enum', [value]])
    else if (!allowed.has(key)) continue
    else if (schemaMaps.has(key) && isJsonObject(value)) {
      entries.push([
        key,
        Object.fromEntries(
          Object.entries(value).map(([name, property]) => [name, sanitizeValue(property)]),
        ),
      ])
    } else if (subschemas.has(key)) entries.push([key, sanitizeValue(value)])
    else if (key === '$ref' && typeof value === 'string')
      entries.push([key, value.replace(/^#\/definitions\//, '#/$defs/')])
    else entries.push([key, value])
  }
  return Object.fromEntries(entries)
}

function sanitizeValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sanitizeValue)
  return isJsonObject(value) ? sanitize(value) : value
}
