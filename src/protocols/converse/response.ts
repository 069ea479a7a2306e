import type { ChatResponse } from '../../canonical/types'
import { isJsonObject, stringOf } from '../../internal/json'
import { converseUsageToCanonical } from './canonical-usage'
import { converseStopToCanonical } from './finish-reason'

/**
 * A Converse answer → canonical response. Converse names neither the answer nor the model, so the
 * id is generated and the model is the one called. Reasoning keeps its signature, or its redacted
 * bytes, tagged as Converse's, so that they go back only to a Converse upstream. Blocks the
 * canonical form has no place for (`citationsContent`, `guardContent`) are skipped, but the text
 * of a `citationsContent` block is kept.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 */
export function decodeConverseResponse(
  body: unknown,
  options: { id: string; model: string; toolNames?: ReadonlyMap<string, string> },
): ChatResponse {
  const object = isJsonObject(body) ? body : {}
  const output = isJsonObject(object['output']) ? object['output'] : {}
  const message = isJsonObject(output['message']) ? output['message'] : {}
  const content: ChatResponse['content'] = []
  for (const block of Array.isArray(message['content']) ? message['content'] : []) {
    if (!isJsonObject(block)) continue
    if (typeof block['text'] === 'string') {
      if (block['text'] !== '') content.push({ type: 'text', text: block['text'] })
    } else if (isJsonObject(block['reasoningContent'])) {
      content.push(reasoningPart(block['reasoningContent']))
    } else if (isJsonObject(block['toolUse'])) {
      const use = block['toolUse']
      const name = stringOf(use['name'])
      content.push({
        type: 'tool-call',
        id: stringOf(use['toolUseId']),
        name: options.toolNames?.get(name) ?? name,
        arguments: JSON.stringify(use['input'] ?? {}),
      })
    } else if (isJsonObject(block['citationsContent'])) {
      const text = citedText(block['citationsContent'])
      if (text !== '') content.push({ type: 'text', text })
    }
  }
  return {
    id: options.id,
    model: options.model,
    content,
    finishReason: converseStopToCanonical(object['stopReason']),
    usage: converseUsageToCanonical(object['usage']),
  }
}

function reasoningPart(reasoning: Record<string, unknown>): ChatResponse['content'][number] {
  if (typeof reasoning['redactedContent'] === 'string') {
    return {
      type: 'reasoning',
      text: '',
      redacted: { protocol: 'converse', value: reasoning['redactedContent'] },
    }
  }
  const text = isJsonObject(reasoning['reasoningText']) ? reasoning['reasoningText'] : {}
  const signature = text['signature']
  return {
    type: 'reasoning',
    text: stringOf(text['text']),
    ...(typeof signature === 'string' && signature !== ''
      ? { signature: { protocol: 'converse' as const, value: signature } }
      : {}),
  }
}

/** The generated text of a `citationsContent` block: its `content[].text` joined. */
function citedText(block: Record<string, unknown>): string {
  const parts = Array.isArray(block['content']) ? block['content'] : []
  return parts
    .map((part) => (isJsonObject(part) && typeof part['text'] === 'string' ? part['text'] : ''))
    .join('')
}
