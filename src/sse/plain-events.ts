import type { SseMessage } from './sse-message'

/**
 * The events of a decoded text made only of plain events — `data: X` alone, or `event: N` then
 * `data: X`, each ended by a blank line, no CR anywhere — each with its wire text (`raw`), which
 * is then exactly what `serializeSse` would write for it. `undefined` when any part of the text is
 * something else: the parser reads it instead. Only for text that starts at an event boundary
 * (the reader checks), so nothing before it is pending.
 *
 * `maxEventChars` bounds each event as the parser does; a longer one is left to the parser, which
 * fails it the same way it always did.
 */
export function plainEvents(text: string, maxEventChars: number): SseMessage[] | undefined {
  if (!text.endsWith('\n\n') || text.includes('\r')) return undefined
  const events: SseMessage[] = []
  let at = 0
  while (at < text.length) {
    const end = text.indexOf('\n\n', at)
    if (end - at > maxEventChars) return undefined
    let event: string | undefined
    let dataAt = at
    if (text.startsWith('event: ', at)) {
      const lineEnd = text.indexOf('\n', at)
      // An empty name reads as no name, and the wire text would then differ: left to the parser.
      if (lineEnd === at + 7 || lineEnd >= end) return undefined
      event = text.slice(at + 7, lineEnd)
      dataAt = lineEnd + 1
    }
    if (!text.startsWith('data: ', dataAt)) return undefined
    // One data line only: a second line would be joined with `\n` and written as two `data:` lines.
    const lineEnd = text.indexOf('\n', dataAt)
    if (lineEnd !== end) return undefined
    events.push({
      type: 'event',
      event,
      id: undefined,
      data: text.slice(dataAt + 6, end),
      raw: text.slice(at, end + 2),
    })
    at = end + 2
  }
  return events
}
