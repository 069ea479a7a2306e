import { parseEmbeddedJson } from '../../http/embedded-json'
import type { StreamEncoder } from '../../canonical/stream-codec'
import type { ReasoningPart, Signed, Usage } from '../../canonical/types'
import { emptyUsage, mergeUsage } from '../../canonical/usage'
import { GatewayError } from '../../errors'
import { isJsonObject } from '../../internal/json'
import { canonicalUsageToGemini, type GeminiUsageMetadata } from './canonical-usage'
import { packCarriedThinking } from './carried-thinking'
import { geminiStreamErrorFrame } from './errors'
import { canonicalFinishToGemini } from './finish-reason'
import { decodeGeminiToolCallId } from './tool-call-id'

/** Options of the Gemini stream encoder. */
export type GeminiStreamEncoderOptions = {
  /** The `responseId` every event repeats. */
  responseId: string
  /** The `modelVersion` every event repeats: the model name the client asked for (ID-02). */
  modelVersion: string
  /**
   * Whether thought parts are written. Gemini sends them only when the request set
   * `thinkingConfig.includeThoughts`; defaults to `true`.
   */
  includeThoughts?: boolean
}

/** The parts this encoder writes. */
type GeminiPart =
  | { text: string; thought?: true; thoughtSignature?: string }
  | {
      functionCall: { name: string; args: Record<string, unknown>; id?: string }
      thoughtSignature?: string
    }

type GeminiChunk = {
  candidates: Array<{
    content: { parts: GeminiPart[]; role: 'model' }
    finishReason?: string
    index: 0
  }>
  usageMetadata?: GeminiUsageMetadata
  modelVersion: string
  responseId: string
}

/** A tool call whose arguments are still arriving. */
type PendingCall = { id: string; name: string; signature: string | undefined; args: string }

/**
 * Canonical stream events → Gemini `streamGenerateContent?alt=sse`, as Google streams it:
 * frames `data: <GenerateContentResponse>\n\n`, each with
 * `candidates[0].content.role: "model"` and only the new parts, `modelVersion` and `responseId`;
 * no terminator.
 *
 * - Text deltas become `{text}` parts and reasoning deltas `{text, thought: true}`, one event per
 *   delta. A Gemini thought signature on `reasoning-end` is written as Gemini writes it, on a
 *   trailing `{text: "", thoughtSignature}` part; other protocols' signatures never reach a
 *   Gemini client.
 * - Function calls are written whole (Gemini never streams arguments): the argument deltas are
 *   buffered, and `tool-call-end` writes one `{functionCall: {name, args, id}}` part, `args` the
 *   parsed object (`{}` when the arguments are empty or not a JSON object, pinned). The part's
 *   `thoughtSignature` is the Gemini signature of `tool-call-start`, or the one folded into the
 *   id by `encodeGeminiToolCallId` (TOOL-H-09), and `id` is the id without it. Anthropic
 *   thinking streamed before the call (its text and `signature_delta`, or redacted data), or an
 *   OpenAI-compatible upstream's reasoning (its text and origin), rides in that signature instead
 *   (`packCarriedThinking`), so a Gemini client brings it back.
 * - `finish` writes the last event: `finishReason` and `usageMetadata`, with parts
 *   `[{text: ""}]` as Gemini's own last event has, because the SDK's chat history rejects an
 *   event with no parts. A refusal explanation has no Gemini field.
 * - `error` writes Google's error object as a `data:` event (see `geminiStreamErrorFrame`);
 *   `end()` without `finish` or `error` writes one too, since the answer is incomplete. Nothing
 *   follows either.
 *
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 * @example
 * const encoder = createGeminiStreamEncoder({ responseId: 'req_1', modelVersion: 'gemini-2.5-flash' })
 * for (const event of events) write(encoder.push(event))
 * write(encoder.end())
 */
export function createGeminiStreamEncoder(options: GeminiStreamEncoderOptions): StreamEncoder {
  const includeThoughts = options.includeThoughts ?? true
  let done = false
  let usage: Usage = emptyUsage()
  /** Canonical block index → the call whose arguments are being buffered. */
  const pending = new Map<number, PendingCall>()
  /** The text of the reasoning block being read, kept in case it is to be carried. */
  let reasoningText = ''
  /** Reasoning not yet carried to a client in a call's signature. */
  let carried: ReasoningPart[] = []
  const callPart = (call: PendingCall): GeminiPart => {
    const part = functionCallPart(call, packCarriedThinking(carried))
    carried = []
    return part
  }

  const frame = (
    parts: GeminiPart[],
    last?: { finishReason: string; usageMetadata: GeminiUsageMetadata },
  ): string => {
    const chunk: GeminiChunk = {
      candidates: [
        {
          content: { parts, role: 'model' },
          ...(last === undefined ? {} : { finishReason: last.finishReason }),
          index: 0,
        },
      ],
      ...(last === undefined ? {} : { usageMetadata: last.usageMetadata }),
      modelVersion: options.modelVersion,
      responseId: options.responseId,
    }
    return `data: ${JSON.stringify(chunk)}\n\n`
  }

  return {
    push(event) {
      if (done) return []
      switch (event.type) {
        case 'message-start':
          if (event.usage !== undefined) usage = mergeUsage(usage, event.usage)
          return []
        case 'text-start':
        case 'text-end':
          return []
        case 'reasoning-start':
          reasoningText = ''
          if (event.redacted !== undefined)
            carried.push({ type: 'reasoning', text: '', redacted: event.redacted })
          return []
        case 'text-delta':
          return event.delta === '' ? [] : [frame([{ text: event.delta }])]
        case 'reasoning-delta':
          reasoningText += event.delta
          if (!includeThoughts || event.delta === '') return []
          return [frame([{ text: event.delta, thought: true }])]
        case 'reasoning-end': {
          // Anthropic's signed thinking, an OpenAI-compatible upstream's reasoning and Converse's
          // signed reasoning ride in the next call's signature (`packCarriedThinking`).
          const signed = event.signature
          if (
            signed?.protocol === 'anthropic' ||
            signed?.protocol === 'openai' ||
            signed?.protocol === 'converse'
          )
            carried.push({ type: 'reasoning', text: reasoningText, signature: signed })
          reasoningText = ''
          const signature = geminiSignature(event.signature)
          if (!includeThoughts || signature === undefined) return []
          return [frame([{ text: '', thoughtSignature: signature }])]
        }
        case 'tool-call-start':
          pending.set(event.index, {
            id: event.id,
            name: event.name,
            signature: geminiSignature(event.signature),
            args: '',
          })
          return []
        case 'tool-call-delta': {
          const call = pending.get(event.index)
          if (call !== undefined) call.args += event.argumentsDelta
          return []
        }
        case 'tool-call-end': {
          const call = pending.get(event.index)
          if (call === undefined) return []
          pending.delete(event.index)
          return [frame([callPart(call)])]
        }
        case 'usage':
          usage = mergeUsage(usage, event.usage)
          return []
        case 'finish': {
          done = true
          // Calls never ended are still whole calls to the client: they go in the last event.
          const calls = [...pending.values()].map(callPart)
          pending.clear()
          return [
            frame(calls.length > 0 ? calls : [{ text: '' }], {
              finishReason: canonicalFinishToGemini(event.finishReason),
              usageMetadata: canonicalUsageToGemini(mergeUsage(usage, event.usage)),
            }),
          ]
        }
        case 'error':
          done = true
          return [geminiStreamErrorFrame(event.error)]
        default: {
          const unknown: never = event
          throw new Error(`Unknown stream event ${JSON.stringify(unknown)}`)
        }
      }
    },

    end() {
      if (done) return []
      done = true
      // Decoders always end with `finish` or `error`; without either the answer is incomplete.
      return [
        geminiStreamErrorFrame(
          new GatewayError('upstream_error', 'The stream ended before the answer finished.'),
        ),
      ]
    },
  }
}

/** Only Gemini's own signatures go back to a Gemini client. */
function geminiSignature(signed: Signed | undefined): string | undefined {
  return signed?.protocol === 'gemini' && signed.value !== '' ? signed.value : undefined
}

function functionCallPart(call: PendingCall, carried: string | undefined): GeminiPart {
  const folded = decodeGeminiToolCallId(call.id)
  const signature = call.signature ?? folded.signature ?? carried
  const parsed = parseEmbeddedJson(call.args, "a tool call's arguments", 'upstream')
  const args = parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}
  return {
    functionCall: { name: call.name, args, ...(folded.id === '' ? {} : { id: folded.id }) },
    ...(signature === undefined ? {} : { thoughtSignature: signature }),
  }
}
