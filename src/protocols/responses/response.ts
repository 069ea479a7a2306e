import type { ChatResponse } from '../../canonical/types'
import { isJsonObject, stringOf } from '../../internal/json'
import { canonicalUsageToResponses, responsesUsageToCanonical } from './canonical-usage'
import { canonicalFinishToResponses, responsesStatusToCanonical } from './finish-reason'
import {
  messageItem,
  reasoningItem,
  responsesIds,
  toolCallItem,
  type ResponsesOutputItem,
} from './output-items'
import type { ResponsesClientContext } from './request-decode'
import { responsesObject, type ResponsesObject } from './response-object'
import { customToolArgument } from './tools-decode'

/**
 * A Response object from an upstream → canonical response: message text (refusals become the
 * refusal), reasoning summaries (or reasoning text) as reasoning, function calls as tool calls, and
 * custom tool calls as calls whose arguments are `{"input": …}`. Hosted tool items are skipped.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */
export function decodeResponsesResponse(body: unknown): ChatResponse {
  const object = isJsonObject(body) ? body : {}
  const content: ChatResponse['content'] = []
  let refusal = ''
  let sawToolCall = false
  for (const item of Array.isArray(object['output']) ? object['output'].filter(isJsonObject) : []) {
    switch (item['type']) {
      case 'message':
        for (const part of Array.isArray(item['content'])
          ? item['content'].filter(isJsonObject)
          : []) {
          if (
            part['type'] === 'output_text' &&
            typeof part['text'] === 'string' &&
            part['text'] !== ''
          )
            content.push({ type: 'text', text: part['text'] })
          else if (part['type'] === 'refusal' && typeof part['refusal'] === 'string')
            refusal += part['refusal']
        }
        break
      case 'reasoning': {
        const text = reasoningText(item)
        if (text !== '') content.push({ type: 'reasoning', text })
        break
      }
      case 'function_call':
        sawToolCall = true
        content.push({
          type: 'tool-call',
          id: stringOf(item['call_id'] ?? ''),
          name: stringOf(item['name'] ?? ''),
          arguments:
            typeof item['arguments'] === 'string' && item['arguments'].trim() !== ''
              ? item['arguments']
              : '{}',
        })
        break
      case 'custom_tool_call':
        sawToolCall = true
        content.push({
          type: 'tool-call',
          id: stringOf(item['call_id'] ?? ''),
          name: stringOf(item['name'] ?? ''),
          arguments: JSON.stringify({ [customToolArgument]: stringOf(item['input'] ?? '') }),
        })
        break
      default:
      // Hosted tool items (web search, code interpreter…) have no canonical place.
    }
  }
  const response: ChatResponse = {
    id: stringOf(object['id'] ?? ''),
    model: stringOf(object['model'] ?? ''),
    content,
    finishReason: responsesStatusToCanonical(
      object['status'],
      object['incomplete_details'],
      sawToolCall,
    ),
    usage: responsesUsageToCanonical(object['usage']),
  }
  if (refusal !== '') response.refusal = refusal
  return response
}

/** The text of a reasoning item: its summaries, else its reasoning text (gpt-oss servers). */
export function reasoningText(item: Record<string, unknown>): string {
  const texts = (list: unknown) =>
    (Array.isArray(list) ? list : [])
      .filter(isJsonObject)
      .map((part) => (typeof part['text'] === 'string' ? part['text'] : ''))
      .join('')
  return texts(item['summary']) || texts(item['content'])
}

/** What an answer to a Responses client is built from, besides the canonical response. */
export type ResponsesAnswerMeta = { requestId: string; model: string; created: number }

/**
 * A canonical response → a Response object for a Responses client (RESP-RES-01…05): one item per
 * content part in order — a message per text run, a reasoning item, a function or custom tool
 * call — then the refusal, if any, as a message (Codex knows no `refusal` part); status and usage
 * from the finish reason and usage. `full` writes every reasoning blob, for the response store.
 */
export function encodeResponsesResponse(
  response: ChatResponse,
  meta: ResponsesAnswerMeta,
  context: ResponsesClientContext,
  full = false,
): ResponsesObject {
  const ids = responsesIds(meta.requestId)
  const output: ResponsesOutputItem[] = []
  for (const part of response.content) {
    const index = output.length
    const previous = output.at(-1)
    if (part.type === 'text') {
      if (part.text === '') continue
      if (previous?.type === 'message') previous.content[0]!.text += part.text
      else output.push(messageItem(ids.item('msg', index), part.text))
    } else if (part.type === 'reasoning') {
      output.push(reasoningItem(ids.item('rs', index), part, context, full))
    } else {
      output.push(toolCallItem(ids, index, part, context))
    }
  }
  if (response.refusal !== undefined && response.refusal !== '')
    output.push(messageItem(ids.item('msg', output.length), response.refusal))
  const outcome = canonicalFinishToResponses(response.finishReason)
  return responsesObject(
    { id: ids.response, createdAt: meta.created, model: meta.model, echo: context.echo },
    {
      status: outcome.status,
      incomplete_details: outcome.incomplete_details,
      ...(outcome.status === 'failed' ? { error: outcome.error } : {}),
      output,
      usage: canonicalUsageToResponses(response.usage),
    },
  )
}
