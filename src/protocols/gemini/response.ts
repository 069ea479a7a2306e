import { parseEmbeddedJson } from '../../http/embedded-json'
import type { ChatResponse, FinishReason, ReasoningPart } from '../../canonical/types'
import { packCarriedThinking } from './carried-thinking'
import { partSignature, signedByGemini } from './part-signature'
import { isJsonObject, stringOf } from '../../internal/json'
import { canonicalUsageToGemini, geminiUsageToCanonical } from './canonical-usage'
import { canonicalFinishToGemini, geminiFinishToCanonical } from './finish-reason'
import { decodeGeminiToolCallId, encodeGeminiToolCallId } from './tool-call-id'

/**
 * A `GenerateContentResponse` → canonical response. Only the first candidate is read (the gateway
 * asks for one).
 *
 * - Thought parts are reasoning, adjacent ones joined until a thought signature closes one; text
 *   parts are joined; every functionCall part is a tool call, its arguments `{}` when
 *   Gemini sent none and its thought signature folded into the id (TOOL-H-09).
 * - `STOP` with a function call is `tool-calls`.
 * - A blocked prompt (no candidates, `promptFeedback.blockReason`) is a content filter whose
 *   refusal names the reason.
 *
 * @param generateId mints ids for function calls that come without one.
 * @param toolNames original tool names keyed by the names Gemini saw (`renamedGeminiTools`), so
 *   that a renamed tool reaches the client under its own name (TOOL-D-03).
 * @see https://ai.google.dev/api/generate-content#generatecontentresponse
 */
export function decodeGeminiResponse(
  body: unknown,
  generateId: () => string,
  toolNames?: ReadonlyMap<string, string>,
): ChatResponse {
  const object = isJsonObject(body) ? body : {}
  const candidates = Array.isArray(object['candidates']) ? object['candidates'] : []
  const candidate = isJsonObject(candidates[0]) ? candidates[0] : undefined
  const message = isJsonObject(candidate?.['content']) ? candidate['content'] : {}
  const content: ChatResponse['content'] = []
  let sawFunctionCall = false
  for (const part of Array.isArray(message['parts']) ? message['parts'] : []) {
    if (!isJsonObject(part)) continue
    const signature = partSignature(part)
    const signed = signedByGemini(signature)
    const last = content.at(-1)
    const call = part['functionCall']
    if (isJsonObject(call)) {
      sawFunctionCall = true
      const name = stringOf(call['name'])
      const callId = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : undefined
      content.push({
        type: 'tool-call',
        id: encodeGeminiToolCallId(signature, callId ?? generateId()),
        name: toolNames?.get(name) ?? name,
        arguments: JSON.stringify(call['args'] ?? {}),
        ...signed,
      })
    } else if (typeof part['text'] === 'string' && part['thought'] === true) {
      if (last?.type === 'reasoning' && last.signature === undefined) {
        last.text += part['text']
        Object.assign(last, signed)
      } else if (part['text'] !== '' || signature !== undefined) {
        content.push({ type: 'reasoning', text: part['text'], ...signed })
      }
    } else if (typeof part['text'] === 'string' && part['text'] !== '') {
      if (last?.type === 'text') last.text += part['text']
      else content.push({ type: 'text', text: part['text'] })
    }
  }
  const response: ChatResponse = {
    id: stringOf(object['responseId']),
    model: stringOf(object['modelVersion']),
    content,
    finishReason: geminiFinishToCanonical(candidate?.['finishReason'], sawFunctionCall),
    usage: geminiUsageToCanonical(object['usageMetadata']),
  }
  const feedback = isJsonObject(object['promptFeedback']) ? object['promptFeedback'] : {}
  if (candidate === undefined && typeof feedback['blockReason'] === 'string') {
    const reason = feedback['blockReason']
    response.finishReason = { unified: 'content-filter', raw: reason } satisfies FinishReason
    response.refusal =
      typeof feedback['blockReasonMessage'] === 'string'
        ? feedback['blockReasonMessage']
        : `The prompt was blocked (${reason}).`
  } else if (
    response.finishReason.unified === 'content-filter' &&
    typeof candidate?.['finishMessage'] === 'string'
  ) {
    response.refusal = candidate['finishMessage']
  }
  return response
}

/**
 * A canonical response → a `GenerateContentResponse`: thought parts first, then
 * text, then function calls, each call with its Gemini thought signature when it has one, and
 * the call's own id so that a client echoing it back keeps the upstream's id. Anthropic thinking
 * (text and signature, or redacted data) or an OpenAI-compatible upstream's reasoning (text and
 * origin) before a call travels in that call's `thoughtSignature`, which Gemini clients echo
 * (`packCarriedThinking`); its text is also shown as a thought part. A refusal explanation has no
 * field.
 *
 * @see https://ai.google.dev/api/generate-content#generatecontentresponse
 */
export function encodeGeminiResponse(
  response: ChatResponse,
  meta: { responseId: string; modelVersion: string },
) {
  const thoughts: Record<string, unknown>[] = []
  const text: Record<string, unknown>[] = []
  const calls: Record<string, unknown>[] = []
  let carried: ReasoningPart[] = []
  for (const part of response.content) {
    if (part.type === 'reasoning') {
      const thought = thoughtPart(part)
      if (thought !== undefined) thoughts.push(thought)
      carried.push(part)
    } else if (part.type === 'text') {
      if (part.text !== '') text.push({ text: part.text })
    } else {
      const decoded = decodeGeminiToolCallId(part.id)
      // Reasoning before this call rides in its signature (`packCarriedThinking`).
      const signature =
        (part.signature?.protocol === 'gemini' ? part.signature.value : decoded.signature) ??
        packCarriedThinking(carried)
      carried = []
      const parsed = parseEmbeddedJson(part.arguments, "a tool call's arguments", 'upstream')
      calls.push({
        functionCall: {
          id: decoded.id,
          name: part.name,
          args: parsed.ok && isJsonObject(parsed.value) ? parsed.value : {},
        },
        ...(signature === undefined ? {} : { thoughtSignature: signature }),
      })
    }
  }
  return {
    candidates: [
      {
        content: { role: 'model', parts: [...thoughts, ...text, ...calls] },
        finishReason: canonicalFinishToGemini(response.finishReason),
        index: 0,
      },
    ],
    usageMetadata: canonicalUsageToGemini(response.usage),
    modelVersion: meta.modelVersion,
    responseId: meta.responseId,
  }
}

function thoughtPart(part: ReasoningPart): Record<string, unknown> | undefined {
  const signature = part.signature?.protocol === 'gemini' ? part.signature.value : undefined
  if (part.text === '' && signature === undefined) return undefined
  return {
    text: part.text,
    thought: true,
    ...(signature === undefined ? {} : { thoughtSignature: signature }),
  }
}
