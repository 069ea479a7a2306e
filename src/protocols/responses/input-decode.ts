import type {
  AssistantMessage,
  ImagePart,
  Message,
  ReasoningPart,
  TextPart,
  ToolResultPart,
} from '../../canonical/types'
import { isJsonObject, stringOf } from '../../internal/json'
import { imagePart, textParts, userParts } from './content-decode'
import { readReturnedReasoningBlob } from './reasoning-blob'
import type { ResponsesInputItem } from './request-schema'
import { customToolArgument, type ResponsesToolNames } from './tools-decode'

/** What decoding the input needs besides the items. */
export type InputDecodeOptions = {
  names: ResponsesToolNames
  /** Reasoning the response store holds, by item id, for items sent back without their blob. */
  storedReasoning?: ReadonlyMap<string, ReasoningPart>
}

/**
 * Responses input items → canonical messages.
 *
 * - A string is one user message. `system` and `developer` messages are system messages.
 * - Assistant messages, reasoning and function / custom tool calls that follow each other form one
 *   assistant turn; calls in a `namespace` get the name the upstream knows them by.
 * - A custom tool call's raw input goes as the arguments `{"input": …}` (RESP-REQ-10).
 * - Tool outputs become tool results, placed right after the turn that made their calls, whatever
 *   came between (Codex may put a developer message there; chat upstreams refuse that). An output
 *   whose call is not in the input becomes user text, so it is neither lost nor refused
 *   (RESP-REQ-09). A call without an output is left as it is: the gateway makes no results up.
 * - Reasoning is restored from the gateway's own `encrypted_content`, or from the response store
 *   by item id; foreign blobs (OpenAI's) and summary-only items are dropped, as no upstream on a
 *   translated path could use them (RESP-REQ-11). A gateway blob that does not read back is a 400
 *   (`readReturnedReasoningBlob`).
 * - `local_shell_call` and its output become a `local_shell` call and result; hosted tool calls,
 *   `compaction` and other items only OpenAI can read are dropped, never a 400 (RESP-REQ-15).
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-input
 */
export function decodeResponsesInput(
  input: string | readonly ResponsesInputItem[] | undefined,
  options: InputDecodeOptions,
): Message[] {
  if (input === undefined) return []
  if (typeof input === 'string') return input === '' ? [] : [userText(input)]
  const messages: Message[] = []
  const assistant = (): AssistantMessage => {
    const last = messages.at(-1)
    if (last?.role === 'assistant') return last
    const turn: AssistantMessage = { role: 'assistant', content: [] }
    messages.push(turn)
    return turn
  }
  const result = (part: ToolResultPart) => {
    const last = messages.at(-1)
    if (last?.role === 'tool') last.content.push(part)
    else messages.push({ role: 'tool', content: [part] })
  }
  input.forEach((item, index) => {
    const path = `input[${index}]`
    switch (item.type ?? 'message') {
      case 'message': {
        const content = item['content']
        switch (item['role']) {
          case 'system':
          case 'developer':
            messages.push({ role: 'system', content: textParts(content) })
            return
          case 'assistant':
            assistant().content.push(...textParts(content))
            return
          default:
            messages.push({ role: 'user', content: userParts(content, `${path}.content`) })
            return
        }
      }
      case 'function_call': {
        const name = upstreamName(item, options.names)
        assistant().content.push({
          type: 'tool-call',
          id: stringOf(item['call_id']),
          name,
          arguments: stringOf(item['arguments']),
        })
        return
      }
      case 'custom_tool_call': {
        const name = upstreamName(item, options.names)
        assistant().content.push({
          type: 'tool-call',
          id: stringOf(item['call_id']),
          name,
          arguments: JSON.stringify({ [customToolArgument]: stringOf(item['input']) }),
        })
        return
      }
      case 'local_shell_call': {
        const id = stringOf(item['call_id'] ?? item['id'] ?? '')
        assistant().content.push({
          type: 'tool-call',
          id,
          name: 'local_shell',
          arguments: JSON.stringify(isJsonObject(item['action']) ? item['action'] : {}),
        })
        return
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'local_shell_call_output': {
        const id = stringOf(item['call_id'] ?? item['id'] ?? '')
        result({
          type: 'tool-result',
          toolCallId: id,
          // Named after its call once calls and results are paired (placeToolResults).
          toolName: '',
          content: outputParts(item['output'], `${path}.output`),
        })
        return
      }
      case 'reasoning': {
        const part = restoreReasoning(item, options.storedReasoning, `${path}.encrypted_content`)
        if (part !== undefined) assistant().content.push(part)
        return
      }
      default:
      // Hosted tool calls, compaction, Codex's own items: only OpenAI could read them.
    }
  })
  return placeToolResults(messages)
}

function userText(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] }
}

/** The name the upstream knows a call's tool by: namespaced tools were flattened (RESP-TOOL-02). */
function upstreamName(item: ResponsesInputItem, names: ResponsesToolNames): string {
  const name = stringOf(item['name'])
  const namespace = item['namespace']
  if (typeof namespace !== 'string' || namespace === '') return name
  return names.qualified.get(`${namespace}\u0000${name}`) ?? name
}

/** A tool output: a string, or `input_text` / `input_image` parts. */
function outputParts(output: unknown, path: string): Array<TextPart | ImagePart> {
  if (typeof output === 'string') return output === '' ? [] : [{ type: 'text', text: output }]
  if (!Array.isArray(output)) return []
  return output.filter(isJsonObject).flatMap((part, index): Array<TextPart | ImagePart> => {
    if (part['type'] === 'input_image') return [imagePart(part, `${path}[${index}]`)]
    return textParts([part])
  })
}

function restoreReasoning(
  item: ResponsesInputItem,
  stored: ReadonlyMap<string, ReasoningPart> | undefined,
  param: string,
): ReasoningPart | undefined {
  const fromBlob = readReturnedReasoningBlob(item['encrypted_content'], param)
  if (fromBlob !== undefined) return fromBlob
  const id = item['id']
  return typeof id === 'string' ? stored?.get(id) : undefined
}

/**
 * Puts each tool result right after the assistant turn with its call, in call order; results
 * whose call is not in the conversation become user text where they stood.
 */
function placeToolResults(messages: Message[]): Message[] {
  const calls = new Map<string, string>()
  for (const message of messages) {
    if (message.role !== 'assistant') continue
    for (const part of message.content) if (part.type === 'tool-call') calls.set(part.id, part.name)
  }
  const results = new Map<string, ToolResultPart>()
  for (const message of messages) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      const name = calls.get(part.toolCallId)
      // A result sent before its call still belongs to it, and takes its name from it.
      if (name !== undefined && !results.has(part.toolCallId))
        results.set(part.toolCallId, { ...part, toolName: name })
    }
  }
  const placed: Message[] = []
  for (const message of messages) {
    if (message.role === 'tool') {
      for (const part of message.content)
        if (!calls.has(part.toolCallId)) placed.push(orphanText(part))
      continue
    }
    if (message.role === 'assistant' && message.content.length === 0) continue
    placed.push(message)
    if (message.role !== 'assistant') continue
    const answered = message.content.flatMap((part) => {
      if (part.type !== 'tool-call') return []
      const found = results.get(part.id)
      results.delete(part.id)
      return found === undefined ? [] : [found]
    })
    if (answered.length > 0) placed.push({ role: 'tool', content: answered })
  }
  return placed
}

function orphanText(result: ToolResultPart): Message {
  const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
  return userText(`Output of tool call ${result.toolCallId}:\n${text}`)
}
