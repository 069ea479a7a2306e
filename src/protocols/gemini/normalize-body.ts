import { isJsonObject } from '../../internal/json'

/** Fields whose value is user data (a `Struct` or a free JSON value): copied as they are. */
const verbatim: Record<string, ReadonlySet<string>> = {
  // Keyed by the field that holds the object; `*` applies anywhere.
  functionCall: new Set(['args']),
  functionResponse: new Set(['response']),
  '*': new Set(['parametersJsonSchema', 'responseJsonSchema', 'labels']),
}

/** Fields holding an OpenAPI `Schema` message, whose keywords may be snake_case too. */
const schemaFields: Record<string, ReadonlySet<string>> = {
  functionDeclarations: new Set(['parameters', 'response']),
  '*': new Set(['responseSchema']),
}

/** Schema keywords whose value is user data, not a schema. */
const schemaData = new Set(['enum', 'required', 'propertyOrdering', 'default', 'example'])

const snakeKey = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/

/**
 * Rewrites an inbound generateContent (or countTokens) body to lowerCamel field names
 * (checklist INGEST-G-01): the REST API accepts both `system_instruction` and
 * `systemInstruction`, and Google's own curl samples use snake_case, while the rest of the gateway
 * reads camelCase only. When both spellings of a field are present, the camelCase one wins.
 *
 * User data is never touched: function call `args`, function response `response`, JSON Schema
 * values (`parametersJsonSchema`, `responseJsonSchema`) and the property names inside an OpenAPI
 * schema's `properties` — a tool parameter may well be called `max_items`.
 *
 * @see https://ai.google.dev/api/generate-content#request-body
 */
export function normalizeGeminiBody(value: unknown): unknown {
  return normalize(value, '')
}

function normalize(value: unknown, container: string): unknown {
  if (Array.isArray(value)) return value.map((item) => normalize(item, container))
  if (!isJsonObject(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    const name = camelKey(key)
    if (name !== key && name in value) continue
    if (inSet(verbatim, container, name)) out[name] = item
    else if (inSet(schemaFields, container, name)) out[name] = normalizeSchema(item)
    else out[name] = normalize(item, name)
  }
  return out
}

function normalizeSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeSchema)
  if (!isJsonObject(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    const name = camelKey(key)
    if (name !== key && name in value) continue
    if (name === 'properties' && isJsonObject(item)) {
      // Property names are the user's; only the schemas under them are normalised.
      out[name] = Object.fromEntries(
        Object.entries(item).map(([property, schema]) => [property, normalizeSchema(schema)]),
      )
    } else if (schemaData.has(name)) out[name] = item
    else out[name] = normalizeSchema(item)
  }
  return out
}

function inSet(table: Record<string, ReadonlySet<string>>, container: string, name: string) {
  return table[container]?.has(name) === true || table['*']!.has(name)
}

function camelKey(key: string): string {
  if (!snakeKey.test(key)) return key
  return key.replace(/_([a-z0-9])/g, (_match, char: string) => char.toUpperCase())
}
