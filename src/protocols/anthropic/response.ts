import { parseEmbeddedJson } from '../../http/embedded-json'
import type { ChatResponse } from '../../canonical/types'
import { isJsonObject, stringOf } from '../../internal/json'
import { anthropicUsageToCanonical, canonicalUsageToAnthropic } from './canonical-usage'
import { anthropicStopToCanonical, canonicalFinishToAnthropic } from './finish-reason'
import { gatewayThinkingSignature } from './thinking-signature'
import { anthropicToolId } from './tool-id'

/**
 * A `message` → canonical response. Thinking keeps its signature, tagged as Anthropic's.
 *
 * @see https://docs.anthropic.com/en/api/messages#response
 */
export function decodeAnthropicResponse(body: unknown): ChatResponse {
  const object = isJsonObject(body) ? body : {}
  const content: ChatResponse['content'] = []
  for (const block of Array.isArray(object['content']) ? object['content'] : []) {
    if (!isJsonObject(block)) continue
    if (block['type'] === 'text' && typeof block['text'] === 'string')
      content.push({ type: 'text', text: block['text'] })
    else if (block['type'] === 'thinking') {
      content.push({
        type: 'reasoning',
        text: stringOf(block['thinking']),
        ...(typeof block['signature'] === 'string'
          ? { signature: { protocol: 'anthropic' as const, value: block['signature'] } }
          : {}),
      })
    } else if (block['type'] === 'redacted_thinking') {
      content.push({
        type: 'reasoning',
        text: '',
        redacted: { protocol: 'anthropic', value: stringOf(block['data']) },
      })
    } else if (block['type'] === 'tool_use') {
      content.push({
        type: 'tool-call',
        id: stringOf(block['id']),
        name: stringOf(block['name']),
        arguments: JSON.stringify(block['input'] ?? {}),
      })
    }
  }
  const response: ChatResponse = {
    id: stringOf(object['id']),
    model: stringOf(object['model']),
    content,
    finishReason: anthropicStopToCanonical(object['stop_reason']),
    usage: anthropicUsageToCanonical(object['usage']),
  }
  if (typeof object['stop_sequence'] === 'string') response.stopSequence = object['stop_sequence']
  const details = object['stop_details']
  if (isJsonObject(details) && typeof details['explanation'] === 'string')
    response.refusal = details['explanation']
  return response
}

/**
 * A canonical response → a `message`: thinking first, then
 * text, then tool_use; `stop_sequence` always present; no empty text blocks (CNT-03).
 */
export function encodeAnthropicResponse(
  response: ChatResponse,
  meta: { id: string; model: string },
) {
  const thinking: Record<string, unknown>[] = []
  const text: Record<string, unknown>[] = []
  const tools: Record<string, unknown>[] = []
  for (const part of response.content) {
    if (part.type === 'reasoning') {
      if (part.redacted?.protocol === 'anthropic')
        thinking.push({ type: 'redacted_thinking', data: part.redacted.value })
      else if (part.redacted === undefined) {
        // Anthropic's own signature, or the gateway's tag on reasoning from elsewhere (RR-02),
        // carrying an OpenAI-compatible upstream's origin so that the text can go back to it.
        const signature =
          part.signature?.protocol === 'anthropic'
            ? part.signature.value
            : gatewayThinkingSignature(part.signature)
        thinking.push({ type: 'thinking', thinking: part.text, signature })
      }
    } else if (part.type === 'text') {
      if (part.text !== '') text.push({ type: 'text', text: part.text })
    } else {
      const parsed = parseEmbeddedJson(part.arguments, "a tool call's arguments", 'upstream')
      tools.push({
        type: 'tool_use',
        id: anthropicToolId(part.id),
        name: part.name,
        input: parsed.ok && isJsonObject(parsed.value) ? parsed.value : {},
      })
    }
  }
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content: [...thinking, ...text, ...tools],
    stop_reason: canonicalFinishToAnthropic(response.finishReason, response.stopSequence),
    stop_sequence: response.stopSequence ?? null,
    usage: canonicalUsageToAnthropic(response.usage),
  }
}
