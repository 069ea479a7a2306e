/**
 * A value that conforms to a JSON Schema, as a model constrained to it would answer: every
 * property of an object (required or not), the first `enum`/`const`/`anyOf` choice, one array
 * item, and a string, number or boolean of the right type. Enough for the schemas SDKs send for
 * structured output (zod's `toJSONSchema`, OpenAPI `responseSchema` with upper-case types).
 */
export function sampleOf(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 12) return null
  const node = schema as Record<string, unknown>
  if (typeof node['$ref'] === 'string')
    return sampleOf(resolveRef(node['$ref'], root), root, depth + 1)
  if ('const' in node) return node['const']
  if (Array.isArray(node['enum']) && node['enum'].length > 0) return node['enum'][0]
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = node[key]
    if (Array.isArray(options)) {
      const first = options.find(
        (option) => typeof option === 'object' && option !== null && option.type !== 'null',
      )
      return sampleOf(first ?? options[0], root, depth + 1)
    }
  }
  const rawType = Array.isArray(node['type'])
    ? node['type'].find((type) => type !== 'null')
    : node['type']
  const type = typeof rawType === 'string' ? rawType.toLowerCase() : undefined
  if (type === 'object' || (type === undefined && typeof node['properties'] === 'object')) {
    const properties = (node['properties'] ?? {}) as Record<string, unknown>
    return Object.fromEntries(
      Object.entries(properties).map(([name, sub]) => [name, sampleOf(sub, root, depth + 1)]),
    )
  }
  if (type === 'array') return [sampleOf(node['items'], root, depth + 1)]
  if (type === 'integer') return 42
  if (type === 'number') return 4.5
  if (type === 'boolean') return true
  if (type === 'null') return null
  if (type === 'string') return node['format'] === 'date-time' ? '2026-01-01T00:00:00Z' : 'sample'
  return 'sample'
}

function resolveRef(ref: string, root: unknown): unknown {
  if (!ref.startsWith('#/')) return {}
  let node: unknown = root
  for (const key of ref.slice(2).split('/')) {
    if (typeof node !== 'object' || node === null) return {}
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

/**
 * The JSON Schema quoted in a JSON instruction (the gateway's, or any prompt that says "conform to
 * this JSON Schema:"), as a model that follows its instructions would read it.
 */
export function schemaInInstruction(text: string): unknown {
  const at = text.indexOf('JSON Schema:')
  if (at < 0) return undefined
  try {
    return JSON.parse(text.slice(at + 'JSON Schema:'.length).trim()) as unknown
  } catch {
    return undefined
  }
}
