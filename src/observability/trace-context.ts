/** The ids of a W3C trace context, as `traceparent` carries them. */
export type TraceParent = { traceId: string; spanId: string; traceFlags: number }

const traceparentPattern = /^[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})(?:-|$)/
const invalidTraceId = '0'.repeat(32)
const invalidSpanId = '0'.repeat(16)

/**
 * Reads a W3C `traceparent` header (https://www.w3.org/TR/trace-context/#traceparent-header): a
 * version other than `ff`, then the trace id, parent id and flags, lower-case hex; an all-zero id
 * is invalid. Anything else is `undefined`, never a throw: the header is the client's.
 */
export function parseTraceparent(header: string | null | undefined): TraceParent | undefined {
  if (header === null || header === undefined || header.length > 512) return undefined
  const match = traceparentPattern.exec(header.trim())
  if (match === null || header.startsWith('ff')) return undefined
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string]
  if (traceId === invalidTraceId || spanId === invalidSpanId) return undefined
  if (header.startsWith('00') && header.trim().length !== 55) return undefined
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) }
}

/** The `traceparent` header of a span context, or `undefined` for an invalid one. */
export function formatTraceparent(context: TraceParent): string | undefined {
  const { traceId, spanId } = context
  if (!/^[\da-f]{32}$/.test(traceId) || traceId === invalidTraceId) return undefined
  if (!/^[\da-f]{16}$/.test(spanId) || spanId === invalidSpanId) return undefined
  return `00-${traceId}-${spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`
}
