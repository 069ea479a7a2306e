import type { FilePart, ImagePart } from '../../canonical/types'
import { stringOf } from '../../internal/json'
import { GatewayError } from '../../errors'
import { mediaTypeFromUrl } from './media-type'

/**
 * An `inlineData` blob → an image (any `image/*` type) or a document.
 * Plain text is decoded to text, which OpenAI and Anthropic both take as a document; audio and
 * video have no counterpart and are refused with 400 naming the part (CNT-05).
 *
 * @see https://ai.google.dev/api/caching#Blob
 */
export function decodeBlob(blob: Record<string, unknown>, param: string): ImagePart | FilePart {
  const mediaType = stringOf(blob['mimeType'])
  const data = stringOf(blob['data'])
  refuseAudioVideo(mediaType, param)
  if (mediaType.startsWith('image/'))
    return { type: 'image', source: { kind: 'base64', mediaType, data } }
  const filename = typeof blob['displayName'] === 'string' ? { filename: blob['displayName'] } : {}
  if (mediaType === 'text/plain') {
    return {
      type: 'file',
      mediaType,
      source: { kind: 'text', text: base64Text(data, param) },
      ...filename,
    }
  }
  return { type: 'file', mediaType, source: { kind: 'base64', data }, ...filename }
}

/**
 * A `fileData` reference → an image or document URL. Its `mimeType` is optional on the wire, so
 * the URL's extension fills in (CNT-02).
 *
 * @see https://ai.google.dev/api/caching#FileData
 */
export function decodeFileData(file: Record<string, unknown>, param: string): ImagePart | FilePart {
  const url = stringOf(file['fileUri'])
  const mediaType =
    typeof file['mimeType'] === 'string' && file['mimeType'] !== ''
      ? file['mimeType']
      : mediaTypeFromUrl(url)
  refuseAudioVideo(mediaType ?? '', param)
  if (mediaType?.startsWith('image/') === true)
    return { type: 'image', source: { kind: 'url', url } }
  return {
    type: 'file',
    mediaType: mediaType ?? 'application/octet-stream',
    source: { kind: 'url', url },
    ...(typeof file['displayName'] === 'string' ? { filename: file['displayName'] } : {}),
  }
}

function refuseAudioVideo(mediaType: string, param: string): void {
  if (!mediaType.startsWith('audio/') && !mediaType.startsWith('video/')) return
  throw new GatewayError(
    'invalid_request',
    `This upstream cannot take \`${mediaType}\` content: only Gemini reads audio and video.`,
    { param },
  )
}

function base64Text(data: string, param: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(
      Uint8Array.from(atob(data), (char) => char.charCodeAt(0)),
    )
  } catch (cause) {
    throw new GatewayError('invalid_request', '`inlineData.data` is not base64 UTF-8 text.', {
      param,
      cause,
    })
  }
}
