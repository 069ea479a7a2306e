import type { StreamDecoder } from '../../canonical/stream-codec'
import type { FinishReason, StreamEvent, Usage } from '../../canonical/types'
import { emptyUsage, mergeUsage } from '../../canonical/usage'
import { GatewayError } from '../../errors'
import { isJsonObject, parseJson } from '../../internal/json'
import type { SseMessage } from '../../sse/sse-message'
import { openAIUsageToCanonical } from './canonical-usage'
import { openAIFinishToCanonical } from './finish-reason'
import { reasoningOriginSignature } from './reasoning-origin'
import { readWireReasoning, type WireReasoning } from './reasoning-read'
import { createToolCallTracker } from './tool-call-tracker'

/** Options of the OpenAI stream decoder. */
export type OpenAIStreamDecoderOptions = {
  /** Makes ids for tool calls the upstream sent without one. */
  generateId: () => string
  /**
   * The upstream model the gateway called: reasoning blocks end signed with their origin
   * (`reasoningOriginSignature`), so that the reasoning can go back to that model. Without it
   * they end unsigned.
   */
  model?: string
}

/** The block in progress; tool calls keep their own state in the tracker. */
type OpenBlock =
  | { kind: 'text'; index: number }
  | { kind: 'reasoning'; index: number; reasoning: WireReasoning }
  | { kind: 'tool-calls' }

/**
 * OpenAI or OpenAI-compatible (vLLM, DeepSeek, Ollama, OpenRouter) chat-completions SSE →
 * canonical stream events.
 *
 * The wire has no block events, so they are synthesised: `delta.content` opens a text block,
 * `delta.reasoning_content`, `delta.reasoning` or text entries of `delta.reasoning_details` a
 * reasoning block (`readWireReasoning`), which ends signed with its origin (the
 * field of its first delta, `options.model`, the digest of its whole text), tool-call
 * deltas tool-call blocks, and a block of another kind closes the open one first. Within one
 * delta the order is reasoning, text, tool calls. Empty strings open nothing.
 *
 * The finish chunk closes the open block, but the `finish` event waits for `[DONE]` or the end of
 * the body, because the usage chunk comes after the finish chunk.
 * Ends: after `[DONE]` the stream finishes, as `stop` (or `tool-calls`)
 * when no finish reason came; a body that ends without `[DONE]` is an `error` event, even after a
 * finish reason, since the answer or its usage chunk (sent after the finish chunk) may be cut
 * short. A data payload with an `error` key (or an `event: error` frame)
 * becomes an `error` event, and nothing follows an `error` or a `finish`. Only choice 0 is read.
 *
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 * @see https://api-docs.deepseek.com/guides/reasoning_model
 * @example
 * const decoder = createOpenAIStreamDecoder({ generateId: () => crypto.randomUUID() })
 * for (const message of messages) relay(decoder.push(message))
 * relay(decoder.end())
 */
export function createOpenAIStreamDecoder(options: OpenAIStreamDecoderOptions): StreamDecoder {
  let started = false
  let ended = false
  let nextBlockIndex = 0
  let open: OpenBlock | undefined
  /** The upstream's `finish_reason`; the last one wins. */
  let rawFinish: string | undefined
  let usage: Usage | undefined
  let refusal = ''
  const tools = createToolCallTracker({
    generateId: options.generateId,
    nextBlockIndex: () => nextBlockIndex++,
  })

  const closeOpen = (events: StreamEvent[]) => {
    if (open === undefined) return
    const block = open
    open = undefined
    switch (block.kind) {
      case 'text':
        events.push({ type: 'text-end', index: block.index })
        return
      case 'reasoning': {
        const { field, text, detail } = block.reasoning
        events.push({
          type: 'reasoning-end',
          index: block.index,
          ...(options.model === undefined
            ? {}
            : { signature: reasoningOriginSignature(field, options.model, text, detail) }),
        })
        return
      }
      case 'tool-calls':
        events.push(...tools.close())
        return
      default: {
        const unknown: never = block
        throw new Error(`Unknown block ${String(unknown)}`)
      }
    }
  }

  const textDelta = (delta: string, events: StreamEvent[]) => {
    if (open?.kind !== 'text') {
      closeOpen(events)
      open = { kind: 'text', index: nextBlockIndex++ }
      events.push({ type: 'text-start', index: open.index })
    }
    events.push({ type: 'text-delta', index: open.index, delta })
  }

  const reasoningDelta = (delta: WireReasoning, events: StreamEvent[]) => {
    if (open?.kind !== 'reasoning') {
      closeOpen(events)
      // The first delta says in which field the reasoning came; the text accumulates.
      open = { kind: 'reasoning', index: nextBlockIndex++, reasoning: { ...delta, text: '' } }
      events.push({ type: 'reasoning-start', index: open.index })
    }
    open.reasoning.text += delta.text
    events.push({ type: 'reasoning-delta', index: open.index, delta: delta.text })
  }

  const readChoice = (choice: Record<string, unknown>, events: StreamEvent[]) => {
    const delta = isJsonObject(choice['delta']) ? choice['delta'] : {}
    const reasoning = readWireReasoning(delta)
    if (reasoning !== undefined) reasoningDelta(reasoning, events)
    const content = firstText(delta['content'])
    if (content !== undefined) textDelta(content, events)
    if (Array.isArray(delta['tool_calls'])) {
      for (const entry of delta['tool_calls']) {
        if (open?.kind !== 'tool-calls') {
          closeOpen(events)
          open = { kind: 'tool-calls' }
        }
        events.push(...tools.push(entry))
      }
    }
    const message = isJsonObject(choice['message']) ? choice['message'] : {}
    refusal += firstText(delta['refusal']) ?? firstText(message['refusal']) ?? ''
    const finish = firstText(choice['finish_reason'])
    if (finish !== undefined) {
      rawFinish = finish
      closeOpen(events)
    }
  }

  const finishEvent = (): StreamEvent => ({
    type: 'finish',
    finishReason: finishReason(rawFinish, tools.sawToolCall),
    usage: usage ?? emptyUsage(),
    ...(refusal === '' ? {} : { refusal }),
  })

  const fail = (error: GatewayError): StreamEvent[] => {
    ended = true
    return [{ type: 'error', error }]
  }

  return {
    push(message: SseMessage) {
      if (ended || message.type === 'comment') return []
      // Some servers send empty data lines as keep-alives.
      if (message.data.trim() === '') return []
      if (message.data.startsWith('[DONE]')) {
        ended = true
        if (!started) return [{ type: 'error', error: emptyStream() }]
        const events: StreamEvent[] = []
        closeOpen(events)
        events.push(finishEvent())
        return events
      }
      const parsed = parseJson(message.data)
      if (message.event === 'error')
        return fail(midStreamError(parsed.ok ? parsed.value : undefined))
      if (!parsed.ok) {
        return fail(
          new GatewayError('upstream_error', 'The upstream sent a stream event that is not JSON.', {
            cause: parsed.error,
          }),
        )
      }
      const chunk = parsed.value
      if (isJsonObject(chunk) && chunk['error'] != null) {
        return fail(midStreamError(chunk))
      }
      if (!isJsonObject(chunk)) {
        return fail(
          new GatewayError('upstream_error', 'The upstream sent a malformed stream chunk.'),
        )
      }

      const choice = firstChoice(chunk['choices'])
      const hasUsage = isJsonObject(chunk['usage'])
      // Azure's first chunk carries only its prompt filter's verdicts (`choices: []`, empty id
      // and model): nothing to say yet, and the next chunk has the answer's real id and model.
      if (!started && choice === undefined && !hasUsage) return []
      const events: StreamEvent[] = []
      if (!started) {
        started = true
        events.push({
          type: 'message-start',
          id: firstText(chunk['id']) ?? options.generateId(),
          model: typeof chunk['model'] === 'string' ? chunk['model'] : '',
        })
      }
      if (choice !== undefined) readChoice(choice, events)
      // The usage-only chunk has `choices: []`, `null` or none at all.
      if (hasUsage) {
        usage = mergeUsage(usage ?? emptyUsage(), openAIUsageToCanonical(chunk['usage']))
        events.push({ type: 'usage', usage })
      }
      return events
    },

    end() {
      if (ended) return []
      ended = true
      // No `[DONE]`: cut short, even after a finish reason, since the usage chunk comes after it.
      return [{ type: 'error', error: endedEarly() }]
    },
  }
}

/**
 * The canonical finish reason. `stop` after streamed tool calls becomes `tool-calls`, with `raw`
 * corrected too so that no encoder restores the wrong value (Gemini's OpenAI-compatible layer
 * does this).
 */
function finishReason(raw: string | undefined, sawToolCall: boolean): FinishReason {
  const reason: FinishReason =
    raw === undefined ? { unified: 'stop' } : openAIFinishToCanonical(raw)
  if (reason.unified !== 'stop' || !sawToolCall) return reason
  return raw === undefined ? { unified: 'tool-calls' } : openAIFinishToCanonical('tool_calls')
}

/** Choice 0 (or a choice without an index); the gateway asks for one choice only. */
function firstChoice(choices: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(choices)) return undefined
  return choices.find(
    (choice): choice is Record<string, unknown> =>
      isJsonObject(choice) && (choice['index'] === 0 || choice['index'] === undefined),
  )
}

function firstText(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === 'string' && value !== '')
}

function emptyStream(): GatewayError {
  return new GatewayError('upstream_error', 'The upstream stream ended without any chunk.')
}

function endedEarly(): GatewayError {
  return new GatewayError('upstream_error', 'The upstream stream ended before [DONE].')
}

/**
 * An upstream error sent inside the stream. The body is kept, tagged as OpenAI's, so that an
 * OpenAI client gets it as the upstream wrote it and other clients do not.
 */
function midStreamError(body: unknown): GatewayError {
  const detail = isJsonObject(body) ? body['error'] : undefined
  const message =
    (isJsonObject(detail) ? firstText(detail['message']) : firstText(detail)) ??
    'The upstream reported an error mid-stream.'
  return new GatewayError('upstream_error', message, {
    upstream: { status: 500, protocol: 'openai', body },
  })
}
