import { GatewayError } from '../errors'
import { isJsonObject, parseJson } from '../internal/json'
import { createChunkDecoder } from '../internal/utf8-chunks'
import type { ChunkSource, UpstreamAnswer } from './upstream-answer'

/** A 2xx JSON answer, checked: its text as the upstream sent it, and the object it parses to. */
export type UpstreamJsonAnswer = { text: string; body: Record<string, unknown> }

/**
 * Reads and checks a 2xx JSON answer before anything trusts it. An answer whose content type is
 * not JSON (an HTML page from a CDN or a captive proxy), whose body is not one JSON object
 * (truncated, garbage), or that is larger than `maxBytes` is the upstream's failure: a 502
 * `upstream_error`, never relayed as a 200 and never decoded into an empty answer.
 *
 * A missing content type and `text/plain` are accepted when the body parses: a `new Response(text)`
 * from a custom provider is `text/plain` by default, and the parse is the real check.
 */
export async function readUpstreamJson(
  response: UpstreamAnswer,
  maxBytes: number,
): Promise<UpstreamJsonAnswer> {
  const type = mediaType(response.headers.get('content-type'))
  if (type !== '' && type !== 'text/plain' && !isJsonMediaType(type)) {
    discard(response.body)
    throw unusableAnswer(`The upstream answered with ${type} instead of JSON.`)
  }
  const text =
    response.text === undefined
      ? await readUpstreamText(response.body, maxBytes)
      : await response.text(maxBytes, () => answerTooLarge(maxBytes))
  const parsed = parseJson(text)
  if (!parsed.ok || !isJsonObject(parsed.value)) {
    throw unusableAnswer('The upstream answered with a body that is not a JSON object.')
  }
  return { text, body: parsed.value }
}

/**
 * Reads an upstream answer as text, up to `maxBytes`. Past it the upstream is at fault, not the
 * client: a 502 "upstream answer too large", never the client's 413.
 */
export async function readUpstreamText(
  reader: ChunkSource | null,
  maxBytes: number,
): Promise<string> {
  if (reader === null) return ''
  const decoder = createChunkDecoder()
  let received = 0
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.end()
    received += value.byteLength
    if (received > maxBytes) {
      discard(reader)
      throw answerTooLarge(maxBytes)
    }
    text += decoder.decode(value)
  }
}

function answerTooLarge(maxBytes: number): GatewayError {
  return new GatewayError(
    'upstream_error',
    `The upstream answer is too large: over the gateway's limit of ${maxBytes} bytes.`,
  )
}

/**
 * Cancels a body the gateway will not read, without waiting: a cancel may take as long as the
 * upstream does to notice, and the client's error must not wait for it.
 */
export function discard(body: { cancel(): Promise<void> } | null): void {
  body?.cancel().catch(() => undefined)
}

/** True when a stream request's answer is server-sent events. */
export function isEventStream(response: UpstreamAnswer): boolean {
  return mediaType(response.headers.get('content-type')) === 'text/event-stream'
}

/** The error for a stream request answered with something other than server-sent events; the body is discarded. */
export function notAnEventStream(response: UpstreamAnswer): GatewayError {
  discard(response.body)
  const type = mediaType(response.headers.get('content-type')) || 'no content type'
  return unusableAnswer(`The upstream answered a stream request with ${type}, not an event stream.`)
}

function unusableAnswer(message: string): GatewayError {
  return new GatewayError('upstream_error', message, { status: 502 })
}

/** `application/json; charset=utf-8` → `application/json`. */
function mediaType(header: string | null): string {
  if (header === null) return ''
  const semicolon = header.indexOf(';')
  return (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase()
}

function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json')
}
