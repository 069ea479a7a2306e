/**
 * What OpenAI's strict mode (`strict: true` function tools and `json_schema` formats, in chat
 * completions and the Responses API alike) refuses in a schema: an object that is not closed
 * (`additionalProperties: false`) or whose properties are not all `required`.
 *
 * @returns the reason in OpenAI's words, or `undefined` for a schema strict mode accepts
 * @see https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 */
export function strictSchemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined
  const node = schema as Record<string, any>
  if (node['type'] === 'object') {
    if (node['additionalProperties'] !== false)
      return "'additionalProperties' is required to be supplied and to be false."
    const properties = Object.keys(node['properties'] ?? {})
    const required: string[] = node['required'] ?? []
    const missing = properties.find((name) => !required.includes(name))
    if (missing !== undefined)
      return `'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`
  }
  const children = [
    ...Object.values(node['properties'] ?? {}),
    ...(node['items'] === undefined ? [] : [node['items']]),
    ...Object.values(node['$defs'] ?? {}),
    ...((node['anyOf'] as unknown[] | undefined) ?? []),
  ]
  for (const child of children) {
    const problem = strictSchemaProblem(child)
    if (problem !== undefined) return problem
  }
  return undefined
}
