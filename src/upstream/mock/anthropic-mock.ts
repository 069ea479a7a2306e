import { estimateTokens } from '../../usage/estimate-tokens'
import { contentText, readMockRequest } from './mock-request'
import { framesToStream, sseHeaders } from './frames-stream'
import { mockReply, splitIntoChunks } from './mock-reply'
import type { OpenAIMockOptions } from './openai-mock'

/**
 * Answers a messages request body exactly as Anthropic would: a `message` object, or the SSE event
 * sequence (message_start, ping, one text block, message_delta, message_stop).
 *
 * @see https://docs.anthropic.com/en/api/messages-streaming
 */
export function answerAnthropicMessages(body: string, options: OpenAIMockOptions): Response {
  const request = readMockRequest(body)
  const reply = mockReply(request.messages, options.reply)
  const inputTokens = countInput(request.raw)
  const outputTokens = estimateTokens(reply)
  const id = `msg_${options.id}`
  const usage = {
    input_tokens: inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: outputTokens,
  }
  if (!request.stream) {
    return Response.json({
      id,
      type: 'message',
      role: 'assistant',
      model: request.model,
      content: [{ type: 'text', text: reply }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage,
    })
  }
  const frame = (type: string, data: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  const frames = [
    frame('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
    frame('ping', {}),
    frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...splitIntoChunks(reply).map((piece) =>
      frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } }),
    ),
    frame('content_block_stop', { index: 0 }),
    frame('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: outputTokens },
    }),
    frame('message_stop', {}),
  ]
  return new Response(framesToStream(frames, options.chunkDelayMs ?? 0), { headers: sseHeaders })
}

/** Answers count_tokens with the mock's estimate over system, messages and tools. */
export function answerAnthropicCountTokens(body: string): Response {
  return Response.json({ input_tokens: countInput(readMockRequest(body).raw) })
}

function countInput(raw: Record<string, unknown>): number {
  const system = contentText(raw['system'])
  const messages = Array.isArray(raw['messages']) ? raw['messages'] : []
  const text = messages
    .map((message) => contentText((message as { content?: unknown }).content))
    .join('\n')
  const tools = raw['tools'] === undefined ? '' : JSON.stringify(raw['tools'])
  return estimateTokens(system) + estimateTokens(text) + estimateTokens(tools) + 4 * messages.length
}
