import type { StreamDecoder } from '../../canonical/stream-codec'
import type { StreamEvent, Usage } from '../../canonical/types'
import { GatewayError } from '../../errors'
import { isJsonObject, parseJson } from '../../internal/json'
import type { SseMessage } from '../../sse/sse-message'
import { anthropicUsageToCanonical } from './canonical-usage'
import { plainTextDeltaOf } from './plain-text-delta'
import { anthropicErrorToGateway } from './errors'
import { anthropicStopToCanonical } from './finish-reason'

type JsonObject = Record<string, unknown>

/** The content block being read. `skipped` is a block type the canonical form has no place for. */
type OpenBlock =
  | { kind: 'text'; upstreamIndex: unknown; index: number }
  | { kind: 'reasoning'; upstreamIndex: unknown; index: number; signature: string }
  | { kind: 'tool-call'; upstreamIndex: unknown; index: number }
  | { kind: 'skipped'; upstreamIndex: unknown }

/**
 * Anthropic messages stream → canonical stream events.
 *
 * - Frames are dispatched on their `event:` name, else on the data's `type`; `ping` and comments
 *   give nothing.
 * - Canonical block indices count the blocks the decoder passes on, from 0. Block types it has no
 *   place for (`server_tool_use`, `web_search_tool_result`, …) and unknown deltas
 *   (`citations_delta`, …) are skipped, so the blocks after them are numbered without gaps.
 * - A thinking block's `signature_delta` is kept for its `reasoning-end`, tagged `anthropic`, so
 *   that it only ever goes back to Anthropic (RR-02, TOOL-H-10).
 * - `message_delta.usage` is cumulative and authoritative: its fields overwrite those of
 *   `message_start`, `input_tokens` included, as the official SDK does.
 * - The finish is emitted at `message_stop`. A body that ends without it ends in an error event,
 *   never in an invented finish.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * @example
 * const decoder = createAnthropicStreamDecoder()
 * const events = [...decoder.push(message), ...decoder.end()]
 */
export function createAnthropicStreamDecoder(): StreamDecoder {
  let started = false
  let terminated = false
  let nextIndex = 0
  let block: OpenBlock | undefined
  // The raw usage, merged field by field: canonical totals are sums, so they are computed from
  // the merged Anthropic fields rather than merged themselves (a later `input_tokens` without
  // cache fields would otherwise give a total without the cache).
  let rawUsage: JsonObject = {}
  let stopReason: unknown
  let stopSequence: string | undefined
  let refusal: string | undefined

  const usage = (): Usage => anthropicUsageToCanonical(rawUsage)

  /** Ends the open block, if any. */
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
                signature: { protocol: 'anthropic', value: open.signature },
              },
        )
        return
      case 'tool-call':
        events.push({ type: 'tool-call-end', index: open.index })
        return
      case 'skipped':
        return
      default: {
        const unknown: never = open
        throw new Error(`Unknown block ${String(unknown)}`)
      }
    }
  }

  const startBlock = (data: JsonObject, events: StreamEvent[]) => {
    // The API never interleaves blocks; should a proxy do so, the open block ends here, so that
    // the canonical stream keeps its one-block-at-a-time promise.
    closeBlock(events)
    const upstreamIndex = data['index']
    const content = isJsonObject(data['content_block']) ? data['content_block'] : {}
    switch (content['type']) {
      case 'text': {
        const index = nextIndex++
        block = { kind: 'text', upstreamIndex, index }
        events.push({ type: 'text-start', index })
        const text = stringOr(content['text'])
        if (text !== '') events.push({ type: 'text-delta', index, delta: text })
        return
      }
      case 'thinking': {
        const index = nextIndex++
        block = {
          kind: 'reasoning',
          upstreamIndex,
          index,
          signature: stringOr(content['signature']),
        }
        events.push({ type: 'reasoning-start', index })
        const thinking = stringOr(content['thinking'])
        if (thinking !== '') events.push({ type: 'reasoning-delta', index, delta: thinking })
        return
      }
      case 'redacted_thinking': {
        const index = nextIndex++
        block = { kind: 'reasoning', upstreamIndex, index, signature: '' }
        events.push({
          type: 'reasoning-start',
          index,
          redacted: { protocol: 'anthropic', value: stringOr(content['data']) },
        })
        return
      }
      case 'tool_use': {
        const index = nextIndex++
        block = { kind: 'tool-call', upstreamIndex, index }
        // `input` is always `{}` here: the input arrives in `input_json_delta`s.
        events.push({
          type: 'tool-call-start',
          index,
          id: stringOr(content['id']),
          name: stringOr(content['name']),
        })
        return
      }
      default:
        block = { kind: 'skipped', upstreamIndex }
    }
  }

  const blockDelta = (data: JsonObject, events: StreamEvent[]) => {
    const open = block
    if (open === undefined || open.kind === 'skipped' || data['index'] !== open.upstreamIndex) {
      return
    }
    const delta = isJsonObject(data['delta']) ? data['delta'] : {}
    switch (delta['type']) {
      case 'text_delta': {
        const text = stringOr(delta['text'])
        if (open.kind === 'text' && text !== '') {
          events.push({ type: 'text-delta', index: open.index, delta: text })
        }
        return
      }
      case 'thinking_delta': {
        const thinking = stringOr(delta['thinking'])
        if (open.kind === 'reasoning' && thinking !== '') {
          events.push({ type: 'reasoning-delta', index: open.index, delta: thinking })
        }
        return
      }
      case 'signature_delta':
        if (open.kind === 'reasoning') open.signature = stringOr(delta['signature'])
        return
      case 'input_json_delta': {
        // The API sends `""` first for some tools: nothing to pass on.
        const json = stringOr(delta['partial_json'])
        if (open.kind === 'tool-call' && json !== '') {
          events.push({ type: 'tool-call-delta', index: open.index, argumentsDelta: json })
        }
        return
      }
      default:
      // citations_delta and deltas added later carry nothing the canonical form holds.
    }
  }

  const messageStart = (data: JsonObject, events: StreamEvent[]) => {
    // A repeated message_start (seen from Anthropic-compatible proxies) is ignored.
    if (started) return
    started = true
    const message = isJsonObject(data['message']) ? data['message'] : {}
    if (isJsonObject(message['usage'])) rawUsage = { ...message['usage'] }
    events.push(
      {
        type: 'message-start',
        id: stringOr(message['id']),
        model: stringOr(message['model']),
        usage: usage(),
      },
      { type: 'usage', usage: usage() },
    )
  }

  const messageDelta = (data: JsonObject, events: StreamEvent[]) => {
    const delta = isJsonObject(data['delta']) ? data['delta'] : {}
    if (delta['stop_reason'] !== undefined && delta['stop_reason'] !== null) {
      stopReason = delta['stop_reason']
    }
    if (typeof delta['stop_sequence'] === 'string') stopSequence = delta['stop_sequence']
    const details = delta['stop_details']
    if (isJsonObject(details) && typeof details['explanation'] === 'string') {
      refusal = details['explanation']
    }
    if (isJsonObject(data['usage'])) {
      rawUsage = { ...rawUsage, ...withoutNulls(data['usage']) }
      events.push({ type: 'usage', usage: usage() })
    }
  }

  const messageStop = (events: StreamEvent[]) => {
    closeBlock(events)
    terminated = true
    events.push({
      type: 'finish',
      finishReason: anthropicStopToCanonical(stopReason),
      ...(stopSequence === undefined ? {} : { stopSequence }),
      ...(refusal === undefined ? {} : { refusal }),
      usage: usage(),
    })
  }

  const fail = (error: GatewayError, events: StreamEvent[]) => {
    terminated = true
    events.push({ type: 'error', error })
  }

  return {
    push(message: SseMessage): StreamEvent[] {
      if (terminated || message.type === 'comment' || message.event === 'ping') return []
      // Most of a stream is text deltas of the open text block: read without building objects.
      const open = block?.kind === 'text' ? block : undefined
      const text = open && plainTextDeltaOf(message, open.upstreamIndex)
      if (text !== undefined)
        return text === '' ? [] : [{ type: 'text-delta', index: open!.index, delta: text }]
      const parsed = parseJson(message.data)
      if (!parsed.ok || !isJsonObject(parsed.value)) {
        const events: StreamEvent[] = []
        fail(
          new GatewayError('upstream_error', 'The upstream sent a stream event that is not JSON.', {
            cause: parsed.ok ? undefined : parsed.error,
          }),
          events,
        )
        return events
      }
      const data = parsed.value
      const events: StreamEvent[] = []
      switch (message.event ?? data['type']) {
        case 'message_start':
          messageStart(data, events)
          break
        case 'content_block_start':
          startBlock(data, events)
          break
        case 'content_block_delta':
          blockDelta(data, events)
          break
        case 'content_block_stop':
          if (block !== undefined && data['index'] === block.upstreamIndex) closeBlock(events)
          break
        case 'message_delta':
          messageDelta(data, events)
          break
        case 'message_stop':
          messageStop(events)
          break
        case 'error':
          fail(anthropicErrorToGateway(data), events)
          break
        default:
        // `ping` without an event name, and event types added later.
      }
      return events
    },
    end(): StreamEvent[] {
      if (terminated) return []
      terminated = true
      return [
        {
          type: 'error',
          error: new GatewayError(
            'upstream_error',
            'The upstream stream ended before message_stop.',
          ),
        },
      ]
    },
  }
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/** A cumulative usage object without the `null`s that mean "not reported". */
function withoutNulls(value: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null))
}
