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
