import { parseEmbeddedJson } from '../../http/embedded-json'
import type {
  AssistantMessage,
  FilePart,
  ImagePart,
  Message,
  TextPart,
  ToolResultPart,
} from '../../canonical/types'
import { GatewayError } from '../../errors'
import { utf8ToBase64 } from '../../internal/base64'
import { isJsonObject } from '../../internal/json'
import { converseToolId } from './tool-id'
import { converseToolName } from './tool-name'

/** A content block of a Converse message (a union: exactly one member is set). */
export type Block = Record<string, unknown>

/** A message of a Converse request. */
export type Turn = { role: 'user' | 'assistant'; content: Block[] }

/** What content encoding needs besides the message: whether cache points may be sent. */
export type ContentOptions = {
  cachePoints: boolean
  /** Document names already used in the request: Converse refuses two documents of one name. */
  documentNames: Set<string>
}

/** The image formats Converse takes, by media type. */
const imageFormats = new Map([
  ['image/png', 'png'],
  ['image/jpeg', 'jpeg'],
  ['image/jpg', 'jpeg'],
  ['image/gif', 'gif'],
  ['image/webp', 'webp'],
])

/** The document formats Converse takes, by media type. */
const documentFormats = new Map([
  ['application/pdf', 'pdf'],
  ['text/plain', 'txt'],
  ['text/csv', 'csv'],
  ['text/html', 'html'],
  ['text/markdown', 'md'],
  ['application/msword', 'doc'],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  ['application/vnd.ms-excel', 'xls'],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'],
])

/** One canonical message as a Converse message; its content may be empty (the caller drops it). */
export function converseTurn(
  message: Exclude<Message, { role: 'system' }>,
  options: ContentOptions,
): Turn {
  switch (message.role) {
    case 'user':
      return {
        role: 'user',
        content: message.content.flatMap((part) => userBlocks(part, options)),
      }
    case 'tool':
      return { role: 'user', content: message.content.map(toolResultBlock) }
    case 'assistant':
      return { role: 'assistant', content: assistantBlocks(message, options) }
    default: {
      const unknown: never = message
      throw new Error(`Unknown message ${JSON.stringify(unknown)}`)
    }
  }
}

/**
 * A text part as blocks: none for blank text (Converse refuses a text block without
 * non-whitespace text: CNT-03), and a cache point after it when the client marked it.
 */
export function textBlocks(part: TextPart, options: ContentOptions): Block[] {
  if (part.text.trim() === '') return []
  return [{ text: part.text }, ...cachePoint(part.cacheControl, options)]
}

function cachePoint(cacheControl: unknown, options: ContentOptions): Block[] {
  if (cacheControl === undefined || !options.cachePoints) return []
  // Anthropic's `ttl: "1h"` has Converse's counterpart; any other lifetime is the default 5 minutes.
  const hour = isJsonObject(cacheControl) && cacheControl['ttl'] === '1h'
  return [{ cachePoint: hour ? { type: 'default', ttl: '1h' } : { type: 'default' } }]
}

function userBlocks(part: TextPart | ImagePart | FilePart, options: ContentOptions): Block[] {
  switch (part.type) {
    case 'text':
      return textBlocks(part, options)
    case 'image':
      return [imageBlock(part), ...cachePoint(part.cacheControl, options)]
    case 'file':
      return [documentBlock(part, options), ...cachePoint(part.cacheControl, options)]
    default: {
      const unknown: never = part
      throw new Error(`Unknown user part ${JSON.stringify(unknown)}`)
    }
  }
}

/**
 * An image as Converse takes it: its bytes (base64 in JSON) and format. Converse cannot fetch a
 * URL, and the gateway does not fetch one for it (a gateway that fetched client URLs could be
 * pointed at its own network), so a URL image is refused with 400.
 */
function imageBlock(part: ImagePart): Block {
  if (part.source.kind === 'url') {
    throw new GatewayError(
      'invalid_request',
      'The Converse API takes images as data, not URLs: send the image base64-encoded (a data: URL or inline data).',
    )
  }
  const format = imageFormats.get(part.source.mediaType.toLowerCase())
  if (format === undefined) {
    throw new GatewayError(
      'invalid_request',
      `The Converse API takes PNG, JPEG, GIF and WebP images, not ${part.source.mediaType}.`,
    )
  }
  return { image: { format, source: { bytes: part.source.data } } }
}

function documentBlock(part: FilePart, options: ContentOptions): Block {
  if (part.source.kind === 'url') {
    throw new GatewayError(
      'invalid_request',
      'The Converse API takes documents as data, not URLs: send the document base64-encoded.',
    )
  }
  const format =
    part.source.kind === 'text' ? 'txt' : documentFormats.get(part.mediaType.toLowerCase())
  if (format === undefined) {
    throw new GatewayError(
      'invalid_request',
      `The Converse API does not take documents of type ${part.mediaType}.`,
    )
  }
  const bytes = part.source.kind === 'text' ? utf8ToBase64(part.source.text) : part.source.data
  return { document: { format, name: documentName(part.filename, options), source: { bytes } } }
}

/**
 * A document name Converse accepts — letters, digits, single spaces, hyphens, parentheses and
 * square brackets — unique within the request; the file name without its extension, or
 * `document`, numbered when taken.
 */
function documentName(filename: string | undefined, options: ContentOptions): string {
  const base =
    (filename ?? '')
      .replace(/\.[A-Za-z0-9]+$/, '')
      .replace(/[^A-Za-z0-9\s()[\]-]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 200) || 'document'
  let name = base
  for (let number = 2; options.documentNames.has(name); number++) name = `${base} (${number})`
  options.documentNames.add(name)
  return name
}

/**
 * A tool result. Converse takes an empty content list here (not a blank text block), and
 * `status: "error"` for a failed call.
 */
function toolResultBlock(result: ToolResultPart): Block {
  const content = result.content.flatMap((part): Block[] =>
    part.type === 'text' ? (part.text === '' ? [] : [{ text: part.text }]) : [imageBlock(part)],
  )
  return {
    toolResult: {
      toolUseId: converseToolId(result.toolCallId),
      content,
      ...(result.isError === true ? { status: 'error' } : {}),
    },
  }
}

/**
 * An assistant turn: reasoning goes back only when a Converse upstream wrote it (its signature or
 * redacted data, byte for byte), first in the turn; other reasoning is left out, never sent
 * unsigned to a model that checks signatures (TOOL-H-10).
 */
function assistantBlocks(message: AssistantMessage, options: ContentOptions): Block[] {
  const reasoning: Block[] = []
  const rest: Block[] = []
  for (const part of message.content) {
    if (part.type === 'reasoning') {
      if (part.redacted?.protocol === 'converse')
        reasoning.push({ reasoningContent: { redactedContent: part.redacted.value } })
      else if (part.signature?.protocol === 'converse' && part.text !== '')
        reasoning.push({
          reasoningContent: { reasoningText: { text: part.text, signature: part.signature.value } },
        })
    } else if (part.type === 'text') {
      rest.push(...textBlocks(part, options))
    } else {
      rest.push({
        toolUse: {
          toolUseId: converseToolId(part.id),
          name: converseToolName(part.name),
          input: toolInput(part.arguments),
        },
      })
    }
  }
  return [...reasoning, ...rest]
}

/** Arguments that are not a JSON object become `{}`: Converse's `input` is a JSON value (TOOL-H-01). */
function toolInput(text: string): Record<string, unknown> {
  if (text.trim() === '') return {}
  const parsed = parseEmbeddedJson(text, "a tool call's arguments", 'client')
  return parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}
}
