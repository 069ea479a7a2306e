import type { StreamDecoder, StreamEncoder } from '../canonical/stream-codec'
import type { ChatResponse, StreamEvent } from '../canonical/types'
import type { ClientProtocol } from '../protocols/protocol-name'
import { decodeAnthropicResponse, encodeAnthropicResponse } from '../protocols/anthropic/response'
import { createAnthropicStreamDecoder } from '../protocols/anthropic/stream-decode'
import { createAnthropicStreamEncoder } from '../protocols/anthropic/stream-encode'
import { decodeGeminiResponse, encodeGeminiResponse } from '../protocols/gemini/response'
import { createGeminiStreamDecoder } from '../protocols/gemini/stream-decode'
import { createGeminiStreamEncoder } from '../protocols/gemini/stream-encode'
import { decodeOpenAIResponse, encodeOpenAIResponse } from '../protocols/openai/response'
import { createOpenAIStreamDecoder } from '../protocols/openai/stream-decode'
import { createOpenAIStreamEncoder } from '../protocols/openai/stream-encode'
import type { ResponsesClientContext } from '../protocols/responses/request-decode'
import { decodeResponsesResponse, encodeResponsesResponse } from '../protocols/responses/response'
import { createResponsesStreamDecoder } from '../protocols/responses/stream-decode'
import { createResponsesStreamEncoder } from '../protocols/responses/stream-encode'
import type { SseMessage } from '../sse/sse-message'

/** What a hit's answer names: its new id, the call name, its time, and what the client asked. */
export type ReplayMeta = {
  requestId: string
  /** The call name the client sent (ADR 0019). */
  model: string
  /** Unix seconds. */
  created: number
  /** OpenAI `stream_options.include_usage`. */
  includeUsage: boolean
  /** A Responses client's echoed fields and tool names; required for `responses`. */
  responses?: ResponsesClientContext | undefined
}

const noIds = () => 'call_cached'

/**
 * A client protocol's own JSON answer (as the gateway sent it) → its canonical form, with the
 * decoder that protocol's upstreams are read with.
 */
export function decodeClientJson(protocol: ClientProtocol, body: unknown): ChatResponse {
  switch (protocol) {
    case 'openai':
      return decodeOpenAIResponse(body)
    case 'anthropic':
      return decodeAnthropicResponse(body)
    case 'gemini':
      return decodeGeminiResponse(body, noIds)
    case 'responses':
      return decodeResponsesResponse(body)
  }
}

function streamDecoder(protocol: ClientProtocol): StreamDecoder {
  switch (protocol) {
    case 'openai':
      return createOpenAIStreamDecoder({ generateId: noIds })
    case 'anthropic':
      return createAnthropicStreamDecoder()
    case 'gemini':
      return createGeminiStreamDecoder({ generateId: noIds })
    case 'responses':
      return createResponsesStreamDecoder({ generateId: noIds })
  }
}

/**
 * A client protocol's stream (its SSE text, as the gateway sent it) → canonical events, with the
 * decoder that protocol's upstreams are read with; `undefined` when the text does not parse.
 */
export function decodeClientStream(
  protocol: ClientProtocol,
  text: string,
): StreamEvent[] | undefined {
  const decoder = streamDecoder(protocol)
  const events: StreamEvent[] = []
  try {
    for (const message of parseSseText(text)) events.push(...decoder.push(message))
    events.push(...decoder.end())
  } catch {
    return undefined
  }
  return events
}

/** A canonical answer as the client protocol's JSON answer body. */
export function encodeClientJson(
  protocol: ClientProtocol,
  response: ChatResponse,
  meta: ReplayMeta,
): unknown {
  switch (protocol) {
    case 'openai':
      return encodeOpenAIResponse(response, {
        id: `chatcmpl-${meta.requestId}`,
        model: meta.model,
        created: meta.created,
      })
    case 'anthropic':
      return encodeAnthropicResponse(response, { id: `msg_${meta.requestId}`, model: meta.model })
    case 'gemini':
      return encodeGeminiResponse(response, {
        responseId: meta.requestId,
        modelVersion: meta.model,
      })
    case 'responses':
      return encodeResponsesResponse(response, meta, responsesContext(meta))
  }
}

/** The client protocol's stream encoder for a hit. */
export function clientStreamEncoder(protocol: ClientProtocol, meta: ReplayMeta): StreamEncoder {
  switch (protocol) {
    case 'openai':
      return createOpenAIStreamEncoder({
        id: `chatcmpl-${meta.requestId}`,
        model: meta.model,
        created: meta.created,
        includeUsage: meta.includeUsage,
      })
    case 'anthropic':
      return createAnthropicStreamEncoder({ id: `msg_${meta.requestId}`, model: meta.model })
    case 'gemini':
      return createGeminiStreamEncoder({ responseId: meta.requestId, modelVersion: meta.model })
    case 'responses':
      return createResponsesStreamEncoder({
        requestId: meta.requestId,
        model: meta.model,
        created: meta.created,
        context: responsesContext(meta),
      })
  }
}

function responsesContext(meta: ReplayMeta): ResponsesClientContext {
  if (meta.responses === undefined) throw new Error('A Responses hit needs its client context.')
  return meta.responses
}

/**
 * The messages of a whole SSE text: `event`, `data` (several lines joined by `\n`) and `id`
 * fields, comments, LF or CRLF line ends. Only for text the gateway itself wrote.
 */
export function parseSseText(text: string): SseMessage[] {
  const messages: SseMessage[] = []
  let event: string | undefined
  let id: string | undefined
  let data: string[] = []
  for (const line of text.split(/\r?\n/)) {
    if (line === '') {
      if (data.length > 0) messages.push({ type: 'event', event, id, data: data.join('\n') })
      event = undefined
      id = undefined
      data = []
      continue
    }
    if (line.startsWith(':')) {
      messages.push({ type: 'comment', comment: line.slice(1).trimStart() })
      continue
    }
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') data.push(value)
    else if (field === 'event') event = value
    else if (field === 'id') id = value
  }
  if (data.length > 0) messages.push({ type: 'event', event, id, data: data.join('\n') })
  return messages
}
