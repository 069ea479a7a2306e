import { parseEmbeddedJson } from '../../http/embedded-json'
import type {
  AssistantMessage,
  FilePart,
  ImagePart,
  Message,
  TextPart,
  ToolResultPart,
} from '../../canonical/types'
import { isJsonObject } from '../../internal/json'
import { anthropicToolId } from './tool-id'

/** A content block of a messages body. */
export type Block = Record<string, unknown>

/** A turn of a messages body. */
export type Turn = { role: 'user' | 'assistant'; content: Block[] }

/** One canonical message as a turn of a messages body. */
export function encodeTurn(message: Exclude<Message, { role: 'system' }>): Turn {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content.flatMap(userBlock) }
    case 'tool':
      return { role: 'user', content: message.content.map(toolResultBlock) }
    case 'assistant':
      return { role: 'assistant', content: assistantBlocks(message) }
    default: {
      const unknown: never = message
      throw new Error(`Unknown message ${JSON.stringify(unknown)}`)
    }
  }
}

/** A text block, with its cache control. */
export function textBlock(part: TextPart): Block {
  return {
    type: 'text',
    text: part.text,
    ...(part.cacheControl === undefined ? {} : { cache_control: part.cacheControl }),
  }
}

function userBlock(part: TextPart | ImagePart | FilePart): Block[] {
  if (part.type === 'text') return part.text === '' ? [] : [textBlock(part)]
  if (part.type === 'image') return [imageBlock(part)]
  const source =
    part.source.kind === 'base64'
      ? { type: 'base64', media_type: part.mediaType, data: part.source.data }
      : part.source.kind === 'url'
        ? { type: 'url', url: part.source.url }
        : { type: 'text', media_type: 'text/plain', data: part.source.text }
  return [
    { type: 'document', source, ...(part.filename === undefined ? {} : { title: part.filename }) },
  ]
}

function imageBlock(part: ImagePart): Block {
  return {
    type: 'image',
    source:
      part.source.kind === 'base64'
        ? { type: 'base64', media_type: part.source.mediaType, data: part.source.data }
        : { type: 'url', url: part.source.url },
  }
}

function toolResultBlock(result: ToolResultPart): Block {
  const content = result.content.flatMap((part) =>
    part.type === 'text'
      ? part.text === ''
        ? []
        : [{ type: 'text', text: part.text }]
      : [imageBlock(part)],
  )
  return {
    type: 'tool_result',
    tool_use_id: anthropicToolId(result.toolCallId),
    content,
    ...(result.isError === true ? { is_error: true } : {}),
  }
}

function assistantBlocks(message: AssistantMessage): Block[] {
  const thinking: Block[] = []
  const rest: Block[] = []
  for (const part of message.content) {
    if (part.type === 'reasoning') {
      if (part.redacted?.protocol === 'anthropic')
        thinking.push({ type: 'redacted_thinking', data: part.redacted.value })
      else if (part.signature?.protocol === 'anthropic')
        thinking.push({ type: 'thinking', thinking: part.text, signature: part.signature.value })
    } else if (part.type === 'text') {
      if (part.text !== '') rest.push(textBlock(part))
    } else {
      rest.push({
        type: 'tool_use',
        id: anthropicToolId(part.id),
        name: part.name,
        input: toolInput(part.arguments),
      })
    }
  }
  // Thinking leads the turn, as Anthropic requires (TOOL-H-10).
  return [...thinking, ...rest]
}

function toolInput(text: string): Record<string, unknown> {
  if (text.trim() === '') return {}
  const parsed = parseEmbeddedJson(text, "a tool call's arguments", 'client')
  return parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}
}

/** Anthropic rejects trailing whitespace in a final assistant (prefill) text (ROLE-04). */
export function trimTrailingAssistant(turns: Turn[]): void {
  const last = turns.at(-1)
  if (last?.role !== 'assistant') return
  const block = last.content.at(-1)
  if (block?.['type'] === 'text' && typeof block['text'] === 'string')
    block['text'] = block['text'].trimEnd()
}
