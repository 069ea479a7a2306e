import type { StreamDecoder } from '../../canonical/stream-codec'
import type { FinishReason, StreamEvent, Usage } from '../../canonical/types'
import { GatewayError } from '../../errors'
import { isJsonObject, parseJson } from '../../internal/json'
import type { SseMessage } from '../../sse/sse-message'
import { geminiUsageToCanonical } from './canonical-usage'
import { geminiErrorToGateway } from './errors'
import { geminiFinishToCanonical } from './finish-reason'
import { partSignature, signedByGemini } from './part-signature'
import { encodeGeminiToolCallId } from './tool-call-id'

type JsonObject = Record<string, unknown>

/** Options of the Gemini stream decoder. */
export type GeminiStreamDecoderOptions = {
  /** Makes the message id when `responseId` is missing, and ids for calls sent without one. */
  generateId: () => string
}

/**
 * The block in progress. Function calls arrive whole and are never left open; a reasoning block
 * keeps the latest thought signature for its end.
 */
type OpenBlock =
  { kind: 'text'; index: number } | { kind: 'reasoning'; index: number; signature?: string }

/**
 * Gemini `:streamGenerateContent?alt=sse` → canonical stream events.
 * Each `data:` is a whole `GenerateContentResponse` holding only the new parts; there is no
 * terminator, the end of the body ends the stream. Rules pinned here:
 *
 * - `message-start` comes with the first event: `responseId` (else a generated id) and
 *   `modelVersion`, and the usage when that event has some.
 * - Parts are read in order from candidate 0. Text parts open (or continue, across events) a text
 *   block, `thought: true` parts a reasoning block; a part of the other kind closes the open block
 *   first. Empty text opens nothing.
 * - A `thoughtSignature` on a thought part, or on a text part while a reasoning block is open
 *   (Gemini's trailing `{text: "", thoughtSignature}`), becomes that block's `reasoning-end`
 *   signature, tagged `gemini`. On a text part with no reasoning before it the
 *   signature is dropped: Google requires signatures back only on function calls.
 * - A `functionCall` part is a whole tool call: start, one delta with `JSON.stringify(args ?? {})`
 *   (no-argument calls have no `args`), end. Its signature rides in the id too
 *   (`encodeGeminiToolCallId`, TOOL-H-09), as OpenAI and Anthropic clients only echo ids.
 * - `usageMetadata` is cumulative: its fields are merged, later ones winning, and every event
 *   carrying it gives a `usage` snapshot.
 * - `finishReason` closes the open block and is remembered; the `finish` event waits for the end
 *   of the body, because nothing marks the last event. `STOP` becomes `tool-calls` when a function
 *   call came in any event of the stream, since Gemini 3 sends `STOP` in a later event than the
 *   call. A prompt blocked before any candidate (`promptFeedback.blockReason`)
 *   finishes as `content-filter`.
 * - A body that ends without a finish reason ends in an `error` event, never in an invented finish
 *   (as for OpenAI streams). A payload `{"error": {code, message, status}}` becomes an `error`
 *   event. Google writes it as bare JSON without `data:`, which the SSE reader hands
 *   out as a message of its own; a `data:` line with that JSON reads the same. Nothing follows an
 *   `error`.
 *
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 * @example
 * const decoder = createGeminiStreamDecoder({ generateId: () => crypto.randomUUID() })
 * for (const message of messages) relay(decoder.push(message))
 * relay(decoder.end())
 */
export function createGeminiStreamDecoder(options: GeminiStreamDecoderOptions): StreamDecoder {
  let started = false
  let terminated = false
  let nextIndex = 0
  let open: OpenBlock | undefined
  let sawFunctionCall = false
  /** The upstream's finish reason; the last one wins. */
  let finishReason: FinishReason | undefined
  // Raw fields merged, then converted: canonical totals are sums of several Gemini counts.
  let rawUsage: JsonObject | undefined

  const usage = (): Usage => geminiUsageToCanonical(rawUsage ?? {})

  const closeOpen = (events: StreamEvent[]) => {
    const block = open
    open = undefined
    if (block === undefined) return
    switch (block.kind) {
      case 'text':
        events.push({ type: 'text-end', index: block.index })
        return
      case 'reasoning':
        events.push(
          block.signature === undefined
            ? { type: 'reasoning-end', index: block.index }
            : {
                type: 'reasoning-end',
                index: block.index,
                signature: { protocol: 'gemini', value: block.signature },
              },
        )
        return
      default: {
        const unknown: never = block
        throw new Error(`Unknown block ${String(unknown)}`)
      }
    }
  }

  const readFunctionCall = (part: JsonObject, call: JsonObject, events: StreamEvent[]) => {
    closeOpen(events)
    sawFunctionCall = true
    const signature = partSignature(part)
    const index = nextIndex++
    const id = encodeGeminiToolCallId(
      signature,
      nonEmpty(call['id']) ?? toolIdSafe(options.generateId()),
    )
    events.push(
      {
        type: 'tool-call-start',
        index,
        id,
        name: stringOr(call['name']),
        ...signedByGemini(signature),
      },
      // `args` is a Struct: an object, or absent for a call without arguments.
      {
        type: 'tool-call-delta',
        index,
        argumentsDelta: JSON.stringify(isJsonObject(call['args']) ? call['args'] : {}),
      },
      { type: 'tool-call-end', index },
    )
  }

  const readTextPart = (part: JsonObject, text: string, events: StreamEvent[]) => {
    const signature = partSignature(part)
    if (part['thought'] === true) {
      if (open?.kind !== 'reasoning' && (text !== '' || signature !== undefined)) {
        closeOpen(events)
        open = { kind: 'reasoning', index: nextIndex++ }
        events.push({ type: 'reasoning-start', index: open.index })
      }
      if (open?.kind !== 'reasoning') return
      if (signature !== undefined) open.signature = signature
      if (text !== '') events.push({ type: 'reasoning-delta', index: open.index, delta: text })
      return
    }
    // The signature of the thoughts just before this part: it ends their block.
    if (open?.kind === 'reasoning' && signature !== undefined) open.signature = signature
    if (text === '') return
    if (open?.kind !== 'text') {
      closeOpen(events)
      open = { kind: 'text', index: nextIndex++ }
      events.push({ type: 'text-start', index: open.index })
    }
    events.push({ type: 'text-delta', index: open.index, delta: text })
  }

  const readCandidate = (candidate: JsonObject, events: StreamEvent[]) => {
    const content = isJsonObject(candidate['content']) ? candidate['content'] : {}
    const parts = Array.isArray(content['parts']) ? content['parts'] : []
    for (const part of parts) {
      if (!isJsonObject(part)) continue
      if (isJsonObject(part['functionCall'])) readFunctionCall(part, part['functionCall'], events)
      else if (typeof part['text'] === 'string') readTextPart(part, part['text'], events)
      // Other parts (inlineData, executableCode, codeExecutionResult…) have no canonical place.
    }
    const reason = nonEmpty(candidate['finishReason'])
    if (reason !== undefined) {
      closeOpen(events)
      finishReason = geminiFinishToCanonical(reason, sawFunctionCall)
    }
  }

  const fail = (error: GatewayError): StreamEvent[] => {
    terminated = true
    return [{ type: 'error', error }]
  }

  return {
    push(message: SseMessage): StreamEvent[] {
      if (terminated || message.type === 'comment' || message.data.trim() === '') return []
      const parsed = parseJson(message.data)
      if (!parsed.ok) {
        return fail(
          new GatewayError('upstream_error', 'The upstream sent a stream event that is not JSON.', {
            cause: parsed.error,
          }),
        )
      }
      const chunk = parsed.value
      if (!isJsonObject(chunk)) {
        return fail(
          new GatewayError('upstream_error', 'The upstream sent a malformed stream event.'),
        )
      }
      if (chunk['error'] != null) return fail(geminiErrorToGateway(chunk))

      const events: StreamEvent[] = []
      if (isJsonObject(chunk['usageMetadata'])) {
        rawUsage = { ...rawUsage, ...withoutNulls(chunk['usageMetadata']) }
      }
      if (!started) {
        started = true
        events.push({
          type: 'message-start',
          id: nonEmpty(chunk['responseId']) ?? options.generateId(),
          model: stringOr(chunk['modelVersion']),
          ...(rawUsage === undefined ? {} : { usage: usage() }),
        })
      }
      const candidate = firstCandidate(chunk['candidates'])
      if (candidate !== undefined) readCandidate(candidate, events)
      const feedback = isJsonObject(chunk['promptFeedback']) ? chunk['promptFeedback'] : {}
      const blockReason = nonEmpty(feedback['blockReason'])
      if (candidate === undefined && blockReason !== undefined) {
        closeOpen(events)
        finishReason = { unified: 'content-filter', raw: blockReason }
      }
      if (isJsonObject(chunk['usageMetadata'])) events.push({ type: 'usage', usage: usage() })
      return events
    },

    end(): StreamEvent[] {
      if (terminated) return []
      terminated = true
      if (finishReason === undefined) {
        return [
          {
            type: 'error',
            error: new GatewayError(
              'upstream_error',
              'The upstream stream ended without a finish reason.',
            ),
          },
        ]
      }
      const events: StreamEvent[] = []
      closeOpen(events)
      // A call after the finish reason's event still makes the turn a tool-call turn.
      const reason =
        finishReason.unified === 'stop' && finishReason.raw === 'STOP'
          ? geminiFinishToCanonical('STOP', sawFunctionCall)
          : finishReason
      events.push({ type: 'finish', finishReason: reason, usage: usage() })
      return events
    },
  }
}

/** Candidate 0 (or one without an index); the gateway asks for one candidate only. */
function firstCandidate(candidates: unknown): JsonObject | undefined {
  if (!Array.isArray(candidates)) return undefined
  return candidates.find(
    (candidate): candidate is JsonObject =>
      isJsonObject(candidate) && (candidate['index'] === 0 || candidate['index'] === undefined),
  )
}

/**
 * A generated id within Anthropic's tool id pattern `^[a-zA-Z0-9_-]+$`, whatever the configured
 * generator returns (TOOL-H-09: the id is what every client echoes).
 */
function toolIdSafe(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, '_')
  return clean === '' ? 'call_gateway' : clean
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/** A cumulative usage object without the `null`s that mean "not reported". */
function withoutNulls(value: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null))
}
