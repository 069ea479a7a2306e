import type { StreamDecoder } from '../../canonical/stream-codec'
import type { StreamEvent, Usage } from '../../canonical/types'
import { GatewayError } from '../../errors'
import { isJsonObject, parseJson, stringOf } from '../../internal/json'
import type { SseMessage } from '../../sse/sse-message'
import { responsesUsageToCanonical } from './canonical-usage'
import { responsesEventError } from './errors'
import { responsesStatusToCanonical } from './finish-reason'
import { reasoningText } from './response'
import { customToolArgument } from './tools-decode'

type JsonObject = Record<string, unknown>

/** The output item being read; items never interleave on this wire. */
type OpenItem = {
  kind: 'text' | 'reasoning' | 'call' | 'custom' | 'skipped'
  outputIndex: unknown
  index: number
  /** Whether any delta was passed on, so a done-only item still gets its content. */
  streamed: boolean
  /**
   * Whether its block has started. A reasoning block starts with its first text: a reasoning
   * item without a summary (a reasoning model asked for none) gives no block, as in JSON.
   */
  begun: boolean
}

/**
 * Responses API SSE (from an OpenAI upstream marked `responses: true`) → canonical stream events.
 *
 * - `response.created` gives `message-start` (the upstream's id and model).
 * - Each output item is one block: a message's `output_text.delta`s are text, a reasoning item's
 *   summary (or reasoning text) deltas are reasoning (no block when it has none, as in JSON
 *   answers), a function call's `arguments` deltas are a
 *   tool call. A custom tool call's raw input goes as `{"input": …}`, so that every client sees a
 *   function call. An item whose content came only in `output_item.done` is sent from there.
 *   Hosted tool items are skipped. Refusals are kept for the finish.
 * - The terminal `response.completed` / `response.incomplete` gives the usage and the finish
 *   (`tool-calls` when any function call came); `response.failed` and `error` give an `error`
 *   event; a body that ends without a terminal is an error too, never an invented finish.
 * - `keepalive` and event types added later give nothing.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export function createResponsesStreamDecoder(options: { generateId: () => string }): StreamDecoder {
  let started = false
  let terminated = false
  let nextIndex = 0
  let open: OpenItem | undefined
  let sawToolCall = false
  let refusal = ''

  const start = (events: StreamEvent[], response: JsonObject) => {
    if (started) return
    started = true
    events.push({
      type: 'message-start',
      id: typeof response['id'] === 'string' ? response['id'] : options.generateId(),
      model: typeof response['model'] === 'string' ? response['model'] : '',
    })
  }

  const close = (events: StreamEvent[]) => {
    const item = open
    open = undefined
    if (item === undefined) return
    if (item.kind === 'text') events.push({ type: 'text-end', index: item.index })
    else if (item.kind === 'reasoning') {
      if (item.begun) events.push({ type: 'reasoning-end', index: item.index })
    } else if (item.kind !== 'skipped') events.push({ type: 'tool-call-end', index: item.index })
  }

  /** Starts a reasoning block on its first text. */
  const beginReasoning = (item: OpenItem, events: StreamEvent[]) => {
    if (item.begun) return
    item.begun = true
    item.index = nextIndex++
    events.push({ type: 'reasoning-start', index: item.index })
  }

  const added = (data: JsonObject, events: StreamEvent[]) => {
    close(events)
    const item = isJsonObject(data['item']) ? data['item'] : {}
    const outputIndex = data['output_index']
    const block = (kind: OpenItem['kind']): OpenItem => ({
      kind,
      outputIndex,
      index: nextIndex++,
      streamed: false,
      begun: true,
    })
    switch (item['type']) {
      case 'message':
        open = block('text')
        events.push({ type: 'text-start', index: open.index })
        return
      case 'reasoning':
        open = { kind: 'reasoning', outputIndex, index: -1, streamed: false, begun: false }
        return
      case 'function_call':
      case 'custom_tool_call':
        sawToolCall = true
        open = block(item['type'] === 'function_call' ? 'call' : 'custom')
        events.push({
          type: 'tool-call-start',
          index: open.index,
          id: stringOf(item['call_id'] ?? options.generateId()),
          name: stringOf(item['name'] ?? ''),
        })
        return
      default:
        open = { kind: 'skipped', outputIndex, index: -1, streamed: false, begun: false }
    }
  }

  const delta = (kind: OpenItem['kind'], data: JsonObject, events: StreamEvent[]) => {
    const item = open
    const text = typeof data['delta'] === 'string' ? data['delta'] : ''
    if (item === undefined || item.kind !== kind || text === '') return
    if (data['output_index'] !== undefined && data['output_index'] !== item.outputIndex) return
    item.streamed = true
    if (kind === 'text') events.push({ type: 'text-delta', index: item.index, delta: text })
    else if (kind === 'reasoning') {
      beginReasoning(item, events)
      events.push({ type: 'reasoning-delta', index: item.index, delta: text })
    } else events.push({ type: 'tool-call-delta', index: item.index, argumentsDelta: text })
  }

  /**
   * `output_item.done`: content not streamed as deltas comes from the full item, then it ends. A
   * custom tool's input is always taken from here, since the canonical call wraps it as JSON.
   */
  const done = (data: JsonObject, events: StreamEvent[]) => {
    const item = open
    const full = isJsonObject(data['item']) ? data['item'] : {}
    if (item !== undefined && !item.streamed) {
      const content =
        item.kind === 'text'
          ? messageText(full)
          : item.kind === 'reasoning'
            ? reasoningText(full)
            : item.kind === 'call'
              ? stringOf(full['arguments'] ?? '')
              : item.kind === 'custom'
                ? JSON.stringify({ [customToolArgument]: stringOf(full['input'] ?? '') })
                : ''
      if (content !== '') {
        if (item.kind === 'text')
          events.push({ type: 'text-delta', index: item.index, delta: content })
        else if (item.kind === 'reasoning') {
          beginReasoning(item, events)
          events.push({ type: 'reasoning-delta', index: item.index, delta: content })
        } else events.push({ type: 'tool-call-delta', index: item.index, argumentsDelta: content })
      }
    }
    close(events)
  }

  const terminal = (type: string, response: JsonObject, events: StreamEvent[]) => {
    close(events)
    terminated = true
    if (type === 'response.failed') {
      events.push({
        type: 'error',
        error: responsesEventError(response['error'], 'The upstream response failed.'),
      })
      return
    }
    const usage: Usage = responsesUsageToCanonical(response['usage'])
    events.push(
      { type: 'usage', usage },
      {
        type: 'finish',
        finishReason: responsesStatusToCanonical(
          response['status'],
          response['incomplete_details'],
          sawToolCall,
        ),
        ...(refusal === '' ? {} : { refusal }),
        usage,
      },
    )
  }

  return {
    push(message: SseMessage): StreamEvent[] {
      if (terminated || message.type === 'comment' || message.data.trim() === '') return []
      const parsed = parseJson(message.data)
      if (!parsed.ok || !isJsonObject(parsed.value)) {
        terminated = true
        return [
          {
            type: 'error',
            error: new GatewayError(
              'upstream_error',
              'The upstream sent a stream event that is not JSON.',
            ),
          },
        ]
      }
      const data = parsed.value
      const type = stringOf(data['type'] ?? message.event ?? '')
      const response = isJsonObject(data['response']) ? data['response'] : {}
      const events: StreamEvent[] = []
      switch (type) {
        case 'response.created':
        case 'response.in_progress':
          start(events, response)
          break
        case 'response.output_item.added':
          start(events, {})
          added(data, events)
          break
        case 'response.output_text.delta':
          delta('text', data, events)
          break
        case 'response.refusal.delta':
          if (typeof data['delta'] === 'string') refusal += data['delta']
          if (open !== undefined) open.streamed = true
          break
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta':
          delta('reasoning', data, events)
          break
        case 'response.function_call_arguments.delta':
          delta('call', data, events)
          break
        case 'response.output_item.done':
          done(data, events)
          break
        case 'response.completed':
        case 'response.incomplete':
        case 'response.failed':
          start(events, response)
          terminal(type, response, events)
          break
        case 'error':
          terminated = true
          events.push({
            type: 'error',
            error: responsesEventError(
              isJsonObject(data['error']) ? data['error'] : data,
              'The upstream reported an error mid-stream.',
            ),
          })
          break
        default:
        // keepalive, content_part events, hosted tool progress and types added later.
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
            'The upstream stream ended before the response finished.',
          ),
        },
      ]
    },
  }
}

function messageText(item: JsonObject): string {
  return (Array.isArray(item['content']) ? item['content'] : [])
    .filter(isJsonObject)
    .map((part) =>
      part['type'] === 'output_text' && typeof part['text'] === 'string' ? part['text'] : '',
    )
    .join('')
}
