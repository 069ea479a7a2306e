import type { ClientJson } from '../../http/client-json'
import { spliceClientJson } from '../../http/splice-body'
import { isJsonObject } from '../../internal/json'

/**
 * The body a Gemini upstream gets on passthrough (generateContent, streamGenerateContent and
 * countTokens). Gemini names the model in the URL, which the gateway builds from the group's
 * `upstreamModel`, so the client's text goes as it is — through `spliceClientJson`, so a body
 * whose keys are written twice or with escapes is re-encoded — except that a `model` the body
 * itself names (the proto's field, which the REST API also reads; in countTokens, inside
 * `generateContentRequest`) is set to the upstream model too. Nothing reaches the upstream naming
 * another model.
 *
 * @see https://ai.google.dev/api/tokens#request-body
 */
export function geminiPassthroughBody(json: ClientJson, upstreamModel: string): string {
  const body = isJsonObject(json.value) ? json.value : {}
  const name = `models/${upstreamModel}`
  const changes: Record<string, unknown> = {}
  if (Object.hasOwn(body, 'model')) changes['model'] = name
  // Google's REST API reads snake_case as well as camelCase field names.
  for (const field of ['generateContentRequest', 'generate_content_request'] as const) {
    const request = body[field]
    if (Object.hasOwn(body, field) && isJsonObject(request) && Object.hasOwn(request, 'model')) {
      changes[field] = { ...request, model: name }
    }
  }
  return spliceClientJson(json, changes)
}
