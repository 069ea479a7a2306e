import type { ChatRequest } from './types'

type JsonFormat = Extract<NonNullable<ChatRequest['responseFormat']>, { type: 'json' }>

/**
 * The instruction that carries a JSON answer request to a model without schema-constrained
 * output: it asks for one JSON object and, with a schema, quotes it. It also
 * puts the word "JSON" in the messages, which OpenAI-style JSON mode requires.
 */
export function jsonInstruction(format: JsonFormat): string {
  const base = 'Respond with a single JSON object and nothing else: no prose, no code fences.'
  if (format.schema === undefined) return base
  return `${base} The object must conform to this JSON Schema:\n${JSON.stringify(format.schema)}`
}
