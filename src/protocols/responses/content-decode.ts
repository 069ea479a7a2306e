import type { FilePart, ImagePart, TextPart } from '../../canonical/types'
import { GatewayError } from '../../errors'
import { isJsonObject, stringOf } from '../../internal/json'

const dataUrl = /^data:([^;,]+);base64,(.*)$/s

/** The text of message content: a string, or its `input_text` / `output_text` / `refusal` parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .filter(isJsonObject)
    .map((part) =>
      typeof part['text'] === 'string'
        ? part['text']
        : typeof part['refusal'] === 'string'
          ? part['refusal']
          : '',
    )
    .join('')
}

/** Text parts of message content; empty text is never sent (CNT-03). */
export function textParts(content: unknown): TextPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return []
  return content.filter(isJsonObject).flatMap((part) => {
    const text =
      typeof part['text'] === 'string'
        ? part['text']
        : typeof part['refusal'] === 'string'
          ? part['refusal']
          : ''
    return text === '' ? [] : [{ type: 'text' as const, text }]
  })
}

/**
 * User content parts → canonical parts: `input_text`; `input_image` with a data URL
 * (base64) or an https URL; `input_file` with `file_data` (a data URL) or `file_url`. A `file_id`
 * names a file stored at OpenAI, which no other upstream can read: 400 naming the part.
 *
 * @param path where the content sits in the request, for error messages (`input[2].content`)
 */
export function userParts(content: unknown, path: string): Array<TextPart | ImagePart | FilePart> {
  if (typeof content === 'string') return textParts(content)
  if (!Array.isArray(content)) return []
  return content.flatMap((part, index): Array<TextPart | ImagePart | FilePart> => {
    if (!isJsonObject(part)) return []
    const where = `${path}[${index}]`
    switch (part['type']) {
      case 'input_text':
      case 'output_text':
      case 'text':
        return textParts([part])
      case 'input_image':
        return [imagePart(part, where)]
      case 'input_file':
        return [filePart(part, where)]
      default:
        throw new GatewayError(
          'invalid_request',
          `This upstream cannot take a \`${stringOf(part['type'])}\` content part.`,
          { param: where },
        )
    }
  })
}

/** An `input_image` part → a canonical image. */
export function imagePart(part: Record<string, unknown>, where: string): ImagePart {
  const url = typeof part['image_url'] === 'string' ? part['image_url'] : undefined
  if (url === undefined) throw storedFile(where)
  const match = dataUrl.exec(url)
  return match
    ? { type: 'image', source: { kind: 'base64', mediaType: match[1]!, data: match[2]! } }
    : { type: 'image', source: { kind: 'url', url } }
}

function filePart(part: Record<string, unknown>, where: string): FilePart {
  const filename = typeof part['filename'] === 'string' ? { filename: part['filename'] } : {}
  const match = dataUrl.exec(typeof part['file_data'] === 'string' ? part['file_data'] : '')
  if (match) {
    return {
      type: 'file',
      mediaType: match[1]!,
      source: { kind: 'base64', data: match[2]! },
      ...filename,
    }
  }
  if (typeof part['file_url'] === 'string') {
    return {
      type: 'file',
      mediaType: 'application/pdf',
      source: { kind: 'url', url: part['file_url'] },
      ...filename,
    }
  }
  throw storedFile(where)
}

function storedFile(where: string): GatewayError {
  return new GatewayError(
    'invalid_request',
    'Files stored at OpenAI (`file_id`) cannot be read by this upstream: send the data inline (a data URL) or a URL.',
    { param: where },
  )
}
