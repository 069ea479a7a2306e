import type { StreamEvent } from '../../../src/canonical/types'
import { decodeResponsesRequest } from '../../../src/protocols/responses/request-decode'
import {
  responsesRequestSchema,
  type ResponsesRequest,
} from '../../../src/protocols/responses/request-schema'
import type { ResponsesObject } from '../../../src/protocols/responses/response-object'
import { createResponsesStreamEncoder } from '../../../src/protocols/responses/stream-encode'

/** A validated Responses request from a partial body (`model` and `input` default). */
export function requestOf(body: Record<string, unknown> = {}): ResponsesRequest {
  return responsesRequestSchema.parse({ model: 'client-model', input: 'Hi', ...body })
}

/** Decodes a Responses body as the handler does, with the input as sent. */
export function decode(body: Record<string, unknown> = {}) {
  const request = requestOf(body)
  return decodeResponsesRequest(request, request.input)
}

/** Encodes canonical events as a Responses stream for a request, returning the SSE text. */
export function encodeStream(
  events: readonly StreamEvent[],
  body: Record<string, unknown> = {},
  options: { keepalives?: number[]; onComplete?: (response: ResponsesObject) => void } = {},
): string {
  const { context } = decode(body)
  const encoder = createResponsesStreamEncoder({
    requestId: 'req_1',
    model: 'client-model',
    created: 1_763_000_000,
    context,
    ...(options.onComplete === undefined ? {} : { onComplete: options.onComplete }),
  })
  const frames: string[] = []
  events.forEach((event, index) => {
    frames.push(...encoder.push(event))
    if (options.keepalives?.includes(index)) frames.push(...(encoder.keepalive?.() ?? []))
  })
  frames.push(...encoder.end())
  return frames.join('')
}

/** Usage as upstreams report it, in canonical form. */
export const usage = {
  input: { total: 120, uncached: 20, cacheRead: 100 },
  output: { total: 30, reasoning: 12 },
}
