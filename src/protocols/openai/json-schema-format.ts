import type { ResponseFormat } from '../../canonical/types'
import { isJsonObject } from '../../internal/json'

/**
 * An OpenAI JSON Schema answer format → canonical: chat completions' `response_format.json_schema`
 * and the Responses API's flat `text.format` carry the same fields (`schema`, `name`,
 * `description`, `strict`); each is kept when the client sent it, so a strict request stays strict
 * toward another OpenAI-style upstream.
 */
export function decodeJsonSchemaFormat(fields: Record<string, unknown>): ResponseFormat {
  return {
    type: 'json',
    ...(isJsonObject(fields['schema']) ? { schema: fields['schema'] } : {}),
    ...(typeof fields['name'] === 'string' ? { name: fields['name'] } : {}),
    ...(typeof fields['description'] === 'string' ? { description: fields['description'] } : {}),
    ...(typeof fields['strict'] === 'boolean' ? { strict: fields['strict'] } : {}),
  }
}

/**
 * A JSON Schema's name as OpenAI takes it — chat completions' `response_format.json_schema.name`
 * and the Responses API's `text.format.name` alike: `^[a-zA-Z0-9_-]{1,64}$`, other characters
 * replaced by `_`, `response` when there is none.
 *
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-response_format
 */
export function openAISchemaName(name: string | undefined): string {
  const safe = (name ?? 'response').replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64)
  return safe === '' ? 'response' : safe
}
