import { GatewayError } from '../../errors'
import type { ProtocolName } from '../../protocols/protocol-name'
import type { ChunkSource } from '../../sse/chunk-source'
import type { UpstreamStreamAnswer } from '../provider'
import { streamExceptionError } from './bedrock-errors'
import {
  createEventStreamDecoder,
  EventStreamFormatError,
  type EventStreamMessage,
} from './event-stream-decoder'

/** Which Bedrock API a stream answers: InvokeModel (Claude's own events) or ConverseStream. */
export type BedrockApi = 'invoke' | 'converse'

const eventStreamType = 'application/vnd.amazon.eventstream'
const utf8 = new TextDecoder()
const encoder = new TextEncoder()

/**
 * Reads a Bedrock event stream as the SSE stream its group's family reads:
 * - InvokeModelWithResponseStream (`invoke`): each `chunk` event's base64 `bytes` is one Anthropic
 *   event, written `event: <type>\ndata: <json>\n\n` as Anthropic's API writes it (Bedrock's
 *   `amazon-bedrock-invocationMetrics` taken off `message_stop`);
 * - ConverseStream (`converse`): each event frame is written `event: <:event-type>\ndata:
 *   <payload JSON>\n\n` (`messageStart`, `contentBlockDelta`, …, `metadata`), which the Converse
 *   codec's stream decoder reads.
 *
 * An exception frame (`:message-type` `exception` or `error`) fails the read with its mapped
 * status (`streamExceptionError`) once the events before it are handed out: before the client's
 * first byte that is the attempt's failure (retried, failed over); after it, the relay writes the
 * client protocol's error event, never a normal end. A bad CRC, an impossible frame or a stream
 * cut inside a frame is the upstream's failure (502), never a crash.
 *
 * @throws GatewayError (502) for an answer that is not an event stream
 */
export function readBedrockStream(
  answer: UpstreamStreamAnswer,
  api: BedrockApi,
  protocol: ProtocolName,
): ChunkSource {
  const type = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== eventStreamType || answer.body === null) {
    throw new GatewayError(
      'upstream_error',
      `Bedrock answered a stream request with ${type || 'no content type'}, not ${eventStreamType}.`,
      { status: 502 },
    )
  }
  const body = answer.body
  const decoder = createEventStreamDecoder()
  let failure: GatewayError | undefined
  let ended = false
  const fail = (error: GatewayError) => {
    failure = error
    body.cancel().catch(() => undefined)
  }
  return {
    async read() {
      for (;;) {
        if (failure !== undefined) throw failure
        if (ended) return { done: true }
        const next = await body.read()
        if (next.done) {
          ended = true
          if (decoder.pending) fail(malformed('The Bedrock stream ended inside a frame.'))
          continue
        }
        let text = ''
        try {
          decoder.push(next.value, (message) => {
            if (failure !== undefined) return
            const kind = stringHeader(message, ':message-type') ?? 'event'
            if (kind !== 'event') fail(exceptionOf(message, kind, protocol))
            else text += api === 'invoke' ? invokeEvent(message) : converseEvent(message)
          })
        } catch (error) {
          fail(
            GatewayError.isInstance(error)
              ? error
              : malformed(
                  error instanceof EventStreamFormatError
                    ? error.message
                    : 'The Bedrock stream could not be read.',
                ),
          )
        }
        // The events before a failure go out first; the failure on the next read.
        if (text !== '') return { done: false, value: encoder.encode(text) }
      }
    },
    cancel: (reason) => body.cancel(reason),
  }
}

/** One InvokeModel `chunk`: the Anthropic event its base64 `bytes` carry, as SSE. */
function invokeEvent(message: EventStreamMessage): string {
  if (stringHeader(message, ':event-type') !== 'chunk') return ''
  const bytes = chunkBytes(message.payload)
  if (bytes === undefined) throw malformed('A Bedrock chunk carries no bytes.')
  const text = base64Text(bytes)
  const event = parseJsonObject(text)
  const name = event?.['type']
  if (event === undefined || typeof name !== 'string' || !/^[a-z_]+$/.test(name)) {
    throw malformed('A Bedrock chunk does not carry an Anthropic event.')
  }
  // Parsed to be checked; written as AWS wrote it (one line of JSON) unless it must change.
  if (name === 'message_stop' && 'amazon-bedrock-invocationMetrics' in event) {
    delete event['amazon-bedrock-invocationMetrics']
    return `event: ${name}\ndata: ${JSON.stringify(event)}\n\n`
  }
  const data = /[\r\n]/.test(text) ? JSON.stringify(event) : text
  return `event: ${name}\ndata: ${data}\n\n`
}

/** A chunk payload's base64 `bytes` (`{"bytes":"…","p":"…"}`): read directly, else parsed. */
function chunkBytes(payload: Uint8Array): string | undefined {
  const text = utf8.decode(payload)
  const direct = /^\{"bytes":"([A-Za-z0-9+/=]*)"[,}]/.exec(text)
  if (direct !== null) return direct[1]
  const bytes = parseJsonObject(text)?.['bytes']
  return typeof bytes === 'string' ? bytes : undefined
}

/** One ConverseStream event frame, as SSE named by its event type. */
function converseEvent(message: EventStreamMessage): string {
  const name = stringHeader(message, ':event-type')
  if (name === undefined || !/^[A-Za-z]+$/.test(name)) return ''
  const payload = parseObject(message.payload)
  if (payload === undefined) throw malformed(`A Bedrock ${name} event is not a JSON object.`)
  // Re-serialised: one line, whatever whitespace AWS wrote.
  return `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`
}

/** The failure an `exception` or `error` frame reports. */
function exceptionOf(
  message: EventStreamMessage,
  kind: string,
  protocol: ProtocolName,
): GatewayError {
  if (kind === 'error') {
    return streamExceptionError(
      stringHeader(message, ':error-code') ?? 'UnknownError',
      stringHeader(message, ':error-message') ?? '',
      protocol,
    )
  }
  const payload = parseObject(message.payload)
  const said = payload?.['message'] ?? payload?.['Message']
  return streamExceptionError(
    stringHeader(message, ':exception-type') ?? 'UnknownException',
    typeof said === 'string' ? said : '',
    protocol,
  )
}

function stringHeader(message: EventStreamMessage, name: string): string | undefined {
  const value = message.headers[name] // lookup-safe: a prototype-less record
  return typeof value === 'string' ? value : undefined
}

function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  return parseJsonObject(utf8.decode(bytes))
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** The UTF-8 text base64 carries (an ASCII text, the most common, without a byte array). */
function base64Text(encoded: string): string {
  let binary: string
  try {
    binary = atob(encoded)
  } catch {
    throw malformed('A Bedrock chunk carries bytes that are not base64.')
  }
  if (!/[\x80-\xff]/.test(binary)) return binary
  const bytes = new Uint8Array(binary.length)
  for (let at = 0; at < binary.length; at++) bytes[at] = binary.charCodeAt(at)
  return utf8.decode(bytes)
}

function malformed(message: string): GatewayError {
  return new GatewayError('upstream_error', message, { status: 502 })
}
