import { GatewayError } from '../../errors'
import { finiteNumber, isJsonObject, parseJson } from '../../internal/json'
import { setStringMember } from '../../internal/set-string-member'
import type { SseTranslator } from '../../canonical/sse-translator'
import type { SseMessage } from '../../sse/sse-message'
import { serializeSse, wireText, withData } from '../../sse/serialize'
import type { TokenUsage } from '../../usage/usage-meter'
import { readResponsesUsage } from './canonical-usage'
import { responsesErrorObject, responsesEventError, responsesFailure } from './errors'

/** The terminal events: the only ones carrying usage. */
const terminals = new Set(['response.completed', 'response.incomplete', 'response.failed'])

/** The events that carry the whole response, and so its `model`. */
const namingEvents = new Set([
  ...terminals,
  'response.created',
  'response.in_progress',
  'response.queued',
])

/** Where `type` and `sequence_number` sit: near the start of every event OpenAI writes. */
const head = 256
const typePattern = /"type"\s*:\s*"([^"\\]+)"/
const sequencePattern = /"sequence_number"\s*:\s*(\d+)/

/**
 * Passthrough for a Responses client of an upstream that speaks Responses: every frame goes out as
 * the upstream wrote it, but for the `response.model` of the events that carry the response, set
 * to the call name (ADR 0019). Only two events are parsed: `response.created` (for the response's
 * identity, should the gateway have to end the stream itself) and the terminal event, whose
 * `response.usage` is what gets metered — it echoes the instructions, tools and whole output, so it
 * can be tens of KB in one frame, parsed once. Other events are only glanced at: their type (from
 * the `event:` line, else the data's first bytes) and sequence number.
 *
 * An upstream that ends without a terminal event, or whose connection breaks, gets an `error`
 * event and `response.failed` from the gateway, numbered after the upstream's last event; never a
 * silent end that a client would take for a complete answer.
 */
export function responsesPassthroughStream(callName: string): SseTranslator {
  let usage: TokenUsage | undefined
  let lastSequence = -1
  let identity: Record<string, unknown> = {}
  let ended = false
  // Whether an event other than a comment has come: an error before any is the upstream's refusal.
  let begun = false

  const failed = (error: GatewayError): string => {
    const object = responsesErrorObject(error)
    const frame = (type: string, payload: Record<string, unknown>) =>
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: ++lastSequence, ...payload })}\n\n`
    return (
      frame('error', {
        code: object.code,
        message: object.message,
        param: object.param,
        error: object,
      }) +
      frame('response.failed', {
        response: {
          ...identity,
          status: 'failed',
          error: responsesFailure(error),
          output: [],
          usage: null,
        },
      })
    )
  }

  return {
    push(upstream: SseMessage) {
      if (upstream.type === 'comment') return { frames: [serializeSse(upstream)] }
      const start = upstream.data.slice(0, head)
      const type = upstream.event ?? typePattern.exec(start)?.[1]
      const message =
        type !== undefined && namingEvents.has(type)
          ? withData(upstream, setStringMember(upstream.data, ['response', 'model'], callName))
          : upstream
      const sequence = sequencePattern.exec(start)?.[1]
      if (type === 'error' && !begun) {
        // An error before any event (an overloaded upstream) is a failure before the first byte:
        // answered with its status, or tried elsewhere, never relayed as a stream of one error.
        const parsed = parseJson(message.data)
        ended = true
        return {
          frames: [],
          final: 'error',
          error: responsesEventError(parsed.ok ? parsed.value : undefined, 'The upstream failed.'),
        }
      }
      begun = true
      if (sequence !== undefined) lastSequence = Math.max(lastSequence, Number(sequence))
      if (type === 'response.created') {
        const parsed = parseJson(message.data)
        const response =
          parsed.ok && isJsonObject(parsed.value) ? parsed.value['response'] : undefined
        if (isJsonObject(response)) identity = { ...response, output: [] }
      } else if (type !== undefined && terminals.has(type)) {
        const parsed = parseJson(message.data)
        const data = parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}
        if (sequence === undefined)
          lastSequence = finiteNumber(data['sequence_number']) ?? lastSequence
        const response = isJsonObject(data['response']) ? data['response'] : {}
        usage = readResponsesUsage(response['usage']) ?? usage
        ended = true
        return {
          frames: [wireText(message)],
          final: type === 'response.failed' ? 'error' : 'ok',
        }
      }
      return { frames: [wireText(message)] }
    },
    end() {
      if (ended) return { frames: [], final: 'ok' }
      ended = true
      const error = new GatewayError(
        'upstream_error',
        'The upstream stream ended before the response finished.',
      )
      return { frames: [failed(error)], final: 'error', error }
    },
    failure(error) {
      if (ended) return ''
      ended = true
      return failed(error)
    },
    usage: () => usage,
  }
}
