import type { ChatResponse } from '../../canonical/types'
import { isJsonObject, stringOf } from '../../internal/json'
import { canonicalUsageToOpenAI, openAIUsageToCanonical } from './canonical-usage'
import { canonicalFinishToOpenAI, openAIFinishToCanonical } from './finish-reason'
import { reasoningOriginSignature } from './reasoning-origin'
import { readWireReasoning } from './reasoning-read'

/**
 * A `chat.completion` → canonical response: reasoning (`reasoning_content`, `reasoning` or the
 * text of `reasoning_details`, see `readWireReasoning`), then text, then tool calls. With `model` —
 * the upstream model the gateway called — the reasoning is signed with its origin
 * (`reasoningOriginSignature`), so that it can go back to that model in that field.
 *
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */
export function decodeOpenAIResponse(
  body: unknown,
  options: { model?: string } = {},
): ChatResponse {
  const object = isJsonObject(body) ? body : {}
  const choice =
    Array.isArray(object['choices']) && isJsonObject(object['choices'][0])
      ? object['choices'][0]
      : {}
  const message = isJsonObject(choice['message']) ? choice['message'] : {}
  const content: ChatResponse['content'] = []
  const reasoning = readWireReasoning(message)
  if (reasoning !== undefined) {
    const { field, text, detail } = reasoning
    content.push({
      type: 'reasoning',
      text,
      ...(options.model === undefined
        ? {}
        : { signature: reasoningOriginSignature(field, options.model, text, detail) }),
    })
  }
  if (typeof message['content'] === 'string' && message['content'] !== '')
    content.push({ type: 'text', text: message['content'] })
  for (const call of Array.isArray(message['tool_calls']) ? message['tool_calls'] : []) {
    if (!isJsonObject(call) || !isJsonObject(call['function'])) continue
    const args = call['function']['arguments']
    content.push({
      type: 'tool-call',
      id: stringOf(call['id']),
      name: stringOf(call['function']['name']),
      // No-argument calls may come as "".
      arguments: typeof args === 'string' && args.trim() !== '' ? args : '{}',
    })
  }
  const response: ChatResponse = {
    id: stringOf(object['id']),
    model: stringOf(object['model']),
    content,
    finishReason: openAIFinishToCanonical(choice['finish_reason']),
    usage: openAIUsageToCanonical(object['usage']),
  }
  if (typeof message['refusal'] === 'string' && message['refusal'] !== '')
    response.refusal = message['refusal']
  return response
}

/**
 * A canonical response → a `chat.completion`. `content` is `null` when there are only
 * tool calls; reasoning goes to `reasoning_content` (RR-01); signatures are never exposed.
 */
export function encodeOpenAIResponse(
  response: ChatResponse,
  meta: { id: string; model: string; created: number },
) {
  const text = response.content
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('')
  const reasoning = response.content
    .flatMap((part) => (part.type === 'reasoning' ? [part.text] : []))
    .join('')
  const calls = response.content.flatMap((part) =>
    part.type === 'tool-call'
      ? [
          {
            id: part.id,
            type: 'function',
            function: { name: part.name, arguments: part.arguments },
          },
        ]
      : [],
  )
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && calls.length > 0 ? null : text,
          ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
          refusal: response.refusal ?? null,
        },
        finish_reason: canonicalFinishToOpenAI(response.finishReason),
        logprobs: null,
      },
    ],
    usage: canonicalUsageToOpenAI(response.usage),
  }
}
