import { GatewayError } from '../errors'
import { isJsonObject, parseJson } from '../internal/json'
import { scanJson, type TopLevelMembers } from '../internal/json-members'
import { maxJsonDepth } from './input-limits'

/**
 * A client's JSON body: the text as received, what `JSON.parse` read from it, and where its
 * top-level members sit in the text (for passthrough splices, `spliceClientJson`).
 */
export type ClientJson = {
  text: string
  value: unknown
  /** `undefined` when the body is not a JSON object. */
  members: TopLevelMembers | undefined
}

/**
 * Parses a client's JSON body. Its nesting is measured first, by a linear scan of the text, and a
 * body deeper than `maxJsonDepth` is refused with 400 before anything walks it recursively.
 * Malformed JSON is a 400 too.
 */
export function parseClientJson(text: string): ClientJson {
  const scan = scanJson(text, maxJsonDepth)
  if (scan.depth > maxJsonDepth) {
    throw new GatewayError(
      'invalid_request',
      `The request body nests objects and arrays more than ${maxJsonDepth} levels deep.`,
    )
  }
  const parsed = parseJson(text)
  if (!parsed.ok) {
    throw new GatewayError(
      'invalid_request',
      `The request body is not valid JSON: ${parsed.error.message}`,
    )
  }
  return { text, value: parsed.value, members: scan.object }
}

/**
 * The `model` of a body that names it (chat-completions, messages, count_tokens), read before the
 * rest is validated, so that a call to an unknown model is answered without walking the body.
 */
export function readModelField(json: ClientJson): string {
  const model = isJsonObject(json.value) ? json.value['model'] : undefined
  if (typeof model === 'string' && model !== '') return model
  if (!isJsonObject(json.value)) {
    throw new GatewayError('invalid_request', 'The request body must be a JSON object.')
  }
  throw new GatewayError(
    'invalid_request',
    'Invalid `model`: `model` must be a non-empty string.',
    { param: 'model' },
  )
}
