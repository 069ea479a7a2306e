import type { StreamDecoder } from '../../canonical/stream-codec'
import type { StreamEvent, Usage } from '../../canonical/types'
import { mergeUsage, emptyUsage } from '../../canonical/usage'
import { GatewayError } from '../../errors'
import { isJsonObject, parseJson } from '../../internal/json'
import type { SseMessage } from '../../sse/sse-message'
import { converseUsageToCanonical } from './canonical-usage'
import { converseStopToCanonical } from './finish-reason'
import { converseStreamError, isConverseStreamException } from './stream-error'

type JsonObject = Record<string, unknown>

/**
 * The block being read. A redacted reasoning block is held until it ends: its bytes may come in
 * several deltas, and the canonical `reasoning-start` carries them whole.
 */
type OpenBlock =
  | { kind: 'text'; upstreamIndex: unknown; index: number }
  | { kind: 'reasoning'; upstreamIndex: unknown; index: number; signature: string }
  | { kind: 'redacted'; upstreamIndex: unknown; data: string }
  | { kind: 'tool-call'; upstreamIndex: unknown; index: number }

/** What the decoder needs: ids for the answer (Converse names none) and the model called. */
export type ConverseStreamDecoderOptions = { generateId: () => string; model: string }

/**
 * ConverseStream → canonical stream events. The stream arrives as SSE whose `event` is the
 * Converse event type and whose `data` is its payload (the Bedrock kind's reader writes it so).
 *
 * - Text and reasoning blocks have no `contentBlockStart`: they start at their first delta. Tool
 *   calls start with `contentBlockStart.start.toolUse` and stream their input as JSON text.
 * - Canonical block indices count the blocks passed on, from 0; a block ends at its
 *   `contentBlockStop`, or when another starts.
 * - A reasoning signature is kept for its `reasoning-end`, redacted reasoning for its
 *   `reasoning-start`, both tagged `converse`, so that they go back only to Converse.
 * - Usage comes in `metadata`, after `messageStop`: the finish is held until it arrives. A stream
 *   that ends after `messageStop` without it finishes with the usage known; one that ends before
 *   `messageStop` ends in an error event, never in an invented finish.
 * - An exception event (`throttlingException`, …) ends the stream in an error with AWS's status.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 */
export function createConverseStreamDecoder(options: ConverseStreamDecoderOptions): StreamDecoder {
  let started = false
  let terminated = false
  let nextIndex = 0
  let block: OpenBlock | undefined
  let usage: Usage = emptyUsage()
  let stop: { reason: unknown } | undefined

  const start = (events: StreamEvent[]) => {
    if (started) return
    started = true
    events.push({ type: 'message-start', id: options.generateId(), model: options.model })
  }

  const closeBlock = (events: StreamEvent[]) => {
    const open = block
    block = undefined
    if (open === undefined) return
    switch (open.kind) {
      case 'text':
        events.push({ type: 'text-end', index: open.index })
        return
      case 'reasoning':
        events.push(
          open.signature === ''
            ? { type: 'reasoning-end', index: open.index }
            : {
                type: 'reasoning-end',
                index: open.index,
                signature: { protocol: 'converse', value: open.signature },
              },
        )
        return
      case 'redacted': {
        const index = nextIndex++
        events.push(
          { type: 'reasoning-start', index, redacted: { protocol: 'converse', value: open.data } },
          { type: 'reasoning-end', index },
        )
        return
      }
      case 'tool-call':
        events.push({ type: 'tool-call-end', index: open.index })
        return
      default: {
        const unknown: never = open
        throw new Error(`Unknown block ${String(unknown)}`)
      }
    }
  }

  const blockStart = (data: JsonObject, events: StreamEvent[]) => {
    start(events)
    closeBlock(events)
    const startData = isJsonObject(data['start']) ? data['start'] : {}
    const use = startData['toolUse']
    if (!isJsonObject(use)) return
    const index = nextIndex++
    block = { kind: 'tool-call', upstreamIndex: data['contentBlockIndex'], index }
    events.push({
      type: 'tool-call-start',
      index,
      id: stringOr(use['toolUseId']),
      name: stringOr(use['name']),
    })
  }

  const blockDelta = (data: JsonObject, events: StreamEvent[]) => {
    start(events)
    const upstreamIndex = data['contentBlockIndex']
    const delta = isJsonObject(data['delta']) ? data['delta'] : {}
    const same = block !== undefined && block.upstreamIndex === upstreamIndex
    if (typeof delta['text'] === 'string') {
      if (!same || block?.kind !== 'text') {
        closeBlock(events)
        const index = nextIndex++
        block = { kind: 'text', upstreamIndex, index }
        events.push({ type: 'text-start', index })
      }
      if (delta['text'] !== '')
        events.push({ type: 'text-delta', index: block.index, delta: delta['text'] })
      return
    }
    if (isJsonObject(delta['reasoningContent'])) {
      reasoningDelta(delta['reasoningContent'], upstreamIndex, same, events)
      return
    }
    if (isJsonObject(delta['toolUse'])) {
      const input = stringOr(delta['toolUse']['input'])
      if (same && block?.kind === 'tool-call' && input !== '')
        events.push({ type: 'tool-call-delta', index: block.index, argumentsDelta: input })
    }
    // `citation` deltas and deltas added later carry nothing the canonical form holds.
  }

  const reasoningDelta = (
    reasoning: JsonObject,
    upstreamIndex: unknown,
    same: boolean,
    events: StreamEvent[],
  ) => {
    const redacted = reasoning['redactedContent']
    if (typeof redacted === 'string') {
      if (same && block?.kind === 'redacted') block.data += redacted
      else if (!same || block?.kind !== 'reasoning') {
        closeBlock(events)
        block = { kind: 'redacted', upstreamIndex, data: redacted }
      }
      return
    }
    if (!same || (block?.kind !== 'reasoning' && block?.kind !== 'redacted')) {
      closeBlock(events)
      const index = nextIndex++
      block = { kind: 'reasoning', upstreamIndex, index, signature: '' }
      events.push({ type: 'reasoning-start', index })
    }
    if (block?.kind !== 'reasoning') return
    if (typeof reasoning['signature'] === 'string') block.signature += reasoning['signature']
    if (typeof reasoning['text'] === 'string' && reasoning['text'] !== '')
      events.push({ type: 'reasoning-delta', index: block.index, delta: reasoning['text'] })
  }

  const finish = (events: StreamEvent[]) => {
    terminated = true
    events.push({ type: 'finish', finishReason: converseStopToCanonical(stop?.reason), usage })
  }

  const fail = (error: GatewayError): StreamEvent[] => {
    terminated = true
    return [{ type: 'error', error }]
  }

  return {
    push(message: SseMessage): StreamEvent[] {
      if (terminated || message.type === 'comment') return []
      const parsed = parseJson(message.data)
      const event = message.event ?? ''
      if (isConverseStreamException(event))
        return fail(converseStreamError(event, parsed.ok ? parsed.value : message.data))
      if (!parsed.ok || !isJsonObject(parsed.value)) {
        return fail(
          new GatewayError('upstream_error', 'The upstream sent a stream event that is not JSON.', {
            cause: parsed.ok ? undefined : parsed.error,
          }),
        )
      }
      const data = parsed.value
      const events: StreamEvent[] = []
      switch (event) {
        case 'messageStart':
          start(events)
          break
        case 'contentBlockStart':
          blockStart(data, events)
          break
        case 'contentBlockDelta':
          blockDelta(data, events)
          break
        case 'contentBlockStop':
          if (block !== undefined && block.upstreamIndex === data['contentBlockIndex'])
            closeBlock(events)
          break
        case 'messageStop':
          start(events)
          closeBlock(events)
          stop = { reason: data['stopReason'] }
          break
        case 'metadata':
          start(events)
          if (isJsonObject(data['usage'])) {
            usage = mergeUsage(usage, converseUsageToCanonical(data['usage']))
            events.push({ type: 'usage', usage })
          }
          if (stop !== undefined) finish(events)
          break
        default:
        // Event types added later.
      }
      return events
    },
    end(): StreamEvent[] {
      if (terminated) return []
      if (stop !== undefined) {
        const events: StreamEvent[] = []
        finish(events)
        return events
      }
      return fail(
        new GatewayError('upstream_error', 'The upstream stream ended before messageStop.'),
      )
    },
  }
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : ''
}
