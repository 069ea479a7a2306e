import { GatewayError } from '../errors'
import { isJsonObject, parseJson } from '../internal/json'
import { scanJson, type TopLevelMembers } from '../internal/json-members'
import { maxJsonDepth } from './input-limits'

/**
 * A client's JSON body, scanned but not yet parsed: its text, and where its top-level members sit
 * (for reading `model` alone, and for passthrough splices, `spliceClientJson`).
 */
export type ScannedJson = {
  text: string
  /** `undefined` when the body is not a JSON object. */
  members: TopLevelMembers | undefined
  /** The parsed value, once `parseClientJson` has run (it parses a body once). */
  value?: unknown
}

/** A client's JSON body, parsed: what `JSON.parse` read from it, beside its text and members. */
export type ClientJson = ScannedJson & { value: unknown }

/**
 * Scans a client's JSON body in one linear pass: its nesting is measured, and a body deeper than
 * `maxJsonDepth` is refused with 400 before anything walks it recursively (or parses it).
 */
export function scanClientJson(text: string): ScannedJson {
  const scan = scanJson(text, maxJsonDepth)
  if (scan.depth > maxJsonDepth) {
    throw new GatewayError(
      'invalid_request',
      `The request body nests objects and arrays more than ${maxJsonDepth} levels deep.`,
    )
  }
  return { text, members: scan.object }
}

/**
 * Parses a scanned (or, for convenience, raw) client body, once: the value is kept on the scanned
 * body. Malformed JSON is a 400.
 */
export function parseClientJson(body: ScannedJson | string): ClientJson {
  const scanned = typeof body === 'string' ? scanClientJson(body) : body
  if (Object.hasOwn(scanned, 'value')) return scanned as ClientJson
  const parsed = parseJson(scanned.text)
  if (!parsed.ok) {
    throw new GatewayError(
      'invalid_request',
      `The request body is not valid JSON: ${parsed.error.message}`,
    )
  }
  scanned.value = parsed.value
  return scanned as ClientJson
}

/**
 * The `model` of a body that names it (chat-completions, messages, count_tokens), read before the
 * rest is parsed and validated, so that a call to an unknown model is answered without parsing a
 * large body: when the body's keys are plain, only the `model` member's text is parsed.
 */
export function readModelField(body: ScannedJson): string {
  const span = body.members?.keysAgree === true ? body.members.members.get('model') : undefined
  let model: unknown
  if (span !== undefined) {
    const parsed = parseJson(body.text.slice(span.valueStart, span.valueEnd))
    model = parsed.ok ? parsed.value : undefined
  } else {
    const json = parseClientJson(body)
    if (!isJsonObject(json.value)) {
      throw new GatewayError('invalid_request', 'The request body must be a JSON object.')
    }
    model = json.value['model']
  }
  if (typeof model === 'string' && model !== '') return model
  throw new GatewayError(
    'invalid_request',
    'Invalid `model`: `model` must be a non-empty string.',
    { param: 'model' },
  )
}
