import { isJsonObject } from '../../internal/json'

// Tables keyed by client field names are Maps and Sets: a field named `constructor` or
// `__proto__` is an ordinary name, never a property of Object.prototype.

/** Fields whose value is user data (a `Struct` or a free JSON value): copied as they are. */
const verbatim = new Map<string, ReadonlySet<string>>([
  // Keyed by the field that holds the object; `*` applies anywhere.
  ['functionCall', new Set(['args'])],
  ['functionResponse', new Set(['response'])],
  ['*', new Set(['parametersJsonSchema', 'responseJsonSchema', 'labels'])],
])

/** Fields holding an OpenAPI `Schema` message, whose keywords may be snake_case too. */
const schemaFields = new Map<string, ReadonlySet<string>>([
  ['functionDeclarations', new Set(['parameters', 'response'])],
  ['*', new Set(['responseSchema'])],
])

/** Schema keywords whose value is user data, not a schema. */
const schemaData = new Set(['enum', 'required', 'propertyOrdering', 'default', 'example'])

const snakeKey = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/

/**
 * Rewrites an inbound generateContent (or countTokens) body to lowerCamel field names: the REST API
 * accepts both `system_instruction` and `systemInstruction`, and Google's own curl samples use
 * snake_case, while the rest of the gateway reads camelCase only. When both spellings of a field
 * are present, the camelCase one wins.
 *
 * User data is never touched: function call `args`, function response `response`, JSON Schema
 * values (`parametersJsonSchema`, `responseJsonSchema`) and the property names inside an OpenAPI
 * schema's `properties` — a tool parameter may well be called `max_items`.
 *
 * The walk is recursive: callers bound the body's nesting first (`parseClientJson`). Objects are
 * rebuilt with `Object.fromEntries`, which defines own properties, so a member named `__proto__`
 * stays a member.
 *
 * @see https://ai.google.dev/api/generate-content#request-body
 */
export function normalizeGeminiBody(value: unknown): unknown {
  return normalize(value, '')
}

function normalize(value: unknown, container: string): unknown {
  if (Array.isArray(value)) return value.map((item) => normalize(item, container))
  if (!isJsonObject(value)) return value
  const entries: Array<[string, unknown]> = []
  for (const [key, item] of Object.entries(value)) {
    const name = camelKey(key)
    if (name !== key && Object.hasOwn(value, name)) continue
    if (inSet(verbatim, container, name)) entries.push([name, item])
    else if (inSet(schemaFields, container, name)) entries.push([name, normalizeSchema(item)])
    else entries.push([name, normalize(item, name)])
  }
  return Object.fromEntries(entries)
}

function normalizeSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeSchema)
  if (!isJsonObject(value)) return value
  const entries: Array<[string, unknown]> = []
  for (const [key, item] of Object.entries(value)) {
    const name = camelKey(key)
    if (name !== key && Object.hasOwn(value, name)) continue
    if (name === 'properties' && isJsonObject(item)) {
      // Property names are the user's; only the schemas under them are normalised.
      entries.push([
        name,
        Object.fromEntries(
          Object.entries(item).map(([property, schema]) => [property, normalizeSchema(schema)]),
        ),
      ])
    } else if (schemaData.has(name)) entries.push([name, item])
    else entries.push([name, normalizeSchema(item)])
  }
  return Object.fromEntries(entries)
}

function inSet(table: ReadonlyMap<string, ReadonlySet<string>>, container: string, name: string) {
  return table.get(container)?.has(name) === true || table.get('*')!.has(name)
}

function camelKey(key: string): string {
  if (!snakeKey.test(key)) return key
  return key.replace(/_([a-z0-9])/g, (_match, char: string) => char.toUpperCase())
}
