import type { RequestEvent } from '../observability/request-event'

/**
 * One log line per completed request. It is built only from the event, which carries the masked
 * key (`sk-…abcd`) and never the full one.
 */
export function formatRequestLog(event: RequestEvent): string {
  const parts = [
    new Date(event.startedAt).toISOString(),
    event.requestId,
    String(event.status),
    event.method,
    event.path,
    `key=${event.key ?? '-'}`,
  ]
  if (event.model !== undefined) parts.push(`model=${event.model}`)
  if (event.group !== undefined) parts.push(`group=${event.group}`)
  if (event.stream === true) parts.push('stream')
  if (event.usage !== undefined) {
    parts.push(`tokens=${event.usage.inputTokens}+${event.usage.outputTokens}`)
  }
  // Which fields a translated request had changed for its model (the details are on the event).
  if (event.adjustments !== undefined && event.adjustments.length > 0)
    parts.push(`adjusted=${[...new Set(event.adjustments.map((item) => item.field))].join(',')}`)
  parts.push(`${event.outcome}`, `${event.durationMs}ms`)
  if (event.error !== undefined) parts.push(`error=${JSON.stringify(event.error.message)}`)
  return parts.join(' ')
}
