import type { SseMessage } from './sse-message'

/**
 * Writes one SSE message as wire text: `event:` and `id:` lines when present, one `data:` line per
 * line of data, and the blank line that ends the event.
 */
export function serializeSse(message: SseMessage): string {
  if (message.type === 'comment') return `: ${message.comment}\n\n`
  let text = ''
  if (message.event !== undefined) text += `event: ${message.event}\n`
  if (message.id !== undefined) text += `id: ${message.id}\n`
  if (message.data.includes('\n')) {
    for (const line of message.data.split('\n')) text += `data: ${line}\n`
  } else {
    text += `data: ${message.data}\n`
  }
  return `${text}\n`
}

/**
 * A message's wire text: as the upstream wrote it when the reader kept that (`raw`, which is
 * exactly what `serializeSse` writes), else serialised.
 */
export function wireText(message: SseMessage): string {
  return message.type === 'event' && message.raw !== undefined ? message.raw : serializeSse(message)
}

/** The event with other data: the same message when the data is the same, else without `raw`. */
export function withData<T extends SseMessage & { type: 'event' }>(message: T, data: string): T {
  return data === message.data ? message : { ...message, data, raw: undefined }
}
