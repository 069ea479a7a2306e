import type { StreamEvent } from '../../canonical/types'
import { isJsonObject, parseJson, stringOf } from '../../internal/json'
import { contentText } from '../../protocols/responses/content-decode'
import { responsesEcho } from '../../protocols/responses/request-decode'
import type { ResponsesRequest } from '../../protocols/responses/request-schema'
import { encodeResponsesResponse } from '../../protocols/responses/response'
import { createResponsesStreamEncoder } from '../../protocols/responses/stream-encode'
import { estimateTokens } from '../../usage/estimate-tokens'
import { framesToStream, sseHeaders } from './frames-stream'
import { mockReply, splitIntoChunks, type MockMessage } from './mock-reply'
import type { OpenAIMockOptions } from './openai-mock'

/**
 * Answers a Responses request body as OpenAI's Responses API would: a Response object, or the
 * SSE lifecycle (`response.created` … `response.completed`, with sequence numbers), echoing the
 * last user message. It writes with the gateway's own Responses encoder, so the offline demo
 * serves `/v1/responses` by passthrough exactly as a client would see it.
 */
export function answerResponses(body: string, options: OpenAIMockOptions): Response {
  const parsed = parseJson(body)
  const request = (parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}) as ResponsesRequest
  const messages = readInput(request['input'])
  const reply = mockReply(messages, options.reply)
  const inputTokens =
    messages.reduce((sum, message) => sum + estimateTokens(message.text) + 4, 0) +
    estimateTokens(typeof request.instructions === 'string' ? request.instructions : '')
  const usage = {
    input: { total: inputTokens, cacheRead: 0 },
    output: { total: estimateTokens(reply), reasoning: 0 },
  }
  const model = typeof request.model === 'string' ? request.model : 'mock'
  const context = {
    names: { custom: new Set<string>(), namespaced: new Map(), qualified: new Map() },
    includeEncrypted: false,
    summaries: false,
    echo: responsesEcho({ ...request, model }),
  }
  const meta = { requestId: options.id, model, created: Math.floor(options.now() / 1000) }
  if (request.stream !== true) {
    return Response.json(
      encodeResponsesResponse(
        {
          id: options.id,
          model,
          content: [{ type: 'text', text: reply }],
          finishReason: { unified: 'stop' },
          usage,
        },
        meta,
        context,
      ),
    )
  }
  const encoder = createResponsesStreamEncoder({ ...meta, context })
  const events: StreamEvent[] = [
    { type: 'message-start', id: options.id, model },
    { type: 'text-start', index: 0 },
    ...splitIntoChunks(reply).map((delta): StreamEvent => ({
      type: 'text-delta',
      index: 0,
      delta,
    })),
    { type: 'text-end', index: 0 },
    { type: 'finish', finishReason: { unified: 'stop' }, usage },
  ]
  const frames = [...events.flatMap((event) => encoder.push(event)), ...encoder.end()]
  return new Response(framesToStream(frames, options.chunkDelayMs ?? 0), { headers: sseHeaders })
}

function readInput(input: unknown): MockMessage[] {
  if (typeof input === 'string') return [{ role: 'user', text: input }]
  if (!Array.isArray(input)) return []
  return input
    .filter(isJsonObject)
    .filter((item) => item['type'] === undefined || item['type'] === 'message')
    .map((item) => ({ role: stringOf(item['role'] ?? ''), text: contentText(item['content']) }))
}
