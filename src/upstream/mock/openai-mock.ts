import { isJsonObject } from '../../internal/json'
import { framesToStream, sseHeaders } from './frames-stream'
import { readMockRequest } from './mock-request'
import { estimateTokens } from '../../usage/estimate-tokens'
import { mockReply, splitIntoChunks } from './mock-reply'

/** Options of the mock's answers. */
export type OpenAIMockOptions = {
  reply?: string | undefined
  chunkDelayMs?: number | undefined
  now: () => number
  id: string
}

/**
 * Answers a chat-completions request body exactly as an OpenAI server would: a
 * `chat.completion` object, or an SSE stream of `chat.completion.chunk`s ending in `[DONE]`, with a
 * usage chunk when `stream_options.include_usage` is set.
 */
export function answerOpenAIChat(body: string, options: OpenAIMockOptions): Response {
  const { raw: request, messages, model } = readMockRequest(body)
  const reply = mockReply(messages, options.reply)
  const promptTokens = messages.reduce((sum, message) => sum + estimateTokens(message.text) + 4, 0)
  const completionTokens = estimateTokens(reply)
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  }
  const created = Math.floor(options.now() / 1000)
  const id = `chatcmpl-${options.id}`
  if (request['stream'] !== true) {
    return Response.json({
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply, refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage,
    })
  }
  const streamOptions = request['stream_options']
  const includeUsage = isJsonObject(streamOptions) && streamOptions['include_usage'] === true
  const base = { id, object: 'chat.completion.chunk', created, model }
  const chunk = (delta: object, finishReason: string | null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    ...(includeUsage ? { usage: null } : {}),
  })
  const events: object[] = [chunk({ role: 'assistant', content: '', refusal: null }, null)]
  for (const piece of splitIntoChunks(reply)) events.push(chunk({ content: piece }, null))
  events.push(chunk({}, 'stop'))
  if (includeUsage) events.push({ ...base, choices: [], usage })
  const frames = [
    ...events.map((event) => `data: ${JSON.stringify(event)}\n\n`),
    'data: [DONE]\n\n',
  ]
  return new Response(framesToStream(frames, options.chunkDelayMs ?? 0), {
    headers: sseHeaders,
  })
}
