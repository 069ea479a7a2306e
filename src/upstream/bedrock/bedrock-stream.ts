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
  const payload = parseObject(message.payload)
  const bytes = payload?.['bytes']
  if (typeof bytes !== 'string') throw malformed('A Bedrock chunk carries no bytes.')
  const event = parseObject(base64Bytes(bytes))
  const name = event?.['type']
  if (event === undefined || typeof name !== 'string' || !/^[a-z_]+$/.test(name)) {
    throw malformed('A Bedrock chunk does not carry an Anthropic event.')
  }
  if (name === 'message_stop') delete event['amazon-bedrock-invocationMetrics']
  return `event: ${name}\ndata: ${JSON.stringify(event)}\n\n`
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
  try {
    const value: unknown = JSON.parse(utf8.decode(bytes))
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

function base64Bytes(encoded: string): Uint8Array {
  let binary: string
  try {
    binary = atob(encoded)
  } catch {
    throw malformed('A Bedrock chunk carries bytes that are not base64.')
  }
  const bytes = new Uint8Array(binary.length)
  for (let at = 0; at < binary.length; at++) bytes[at] = binary.charCodeAt(at)
  return bytes
}

function malformed(message: string): GatewayError {
  return new GatewayError('upstream_error', message, { status: 502 })
}
