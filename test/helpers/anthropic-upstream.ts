import { http, HttpResponse } from 'msw'
import {
  anthropicModelAnswer,
  checkAnthropicRequest,
  recordScriptedThinking,
} from './fakes/anthropic-fake'
import type { UpstreamBehaviour, UpstreamCallRecord } from './upstream'
import { answer, modelAnswer, parseBody } from './upstream'

/** The mocked Anthropic upstream's base URL: the bare host, by the Anthropic SDK's convention. */
export const anthropicBaseUrl = 'https://anthropic.test'

/** The upstream key the gateway must send as `x-api-key`. */
export const anthropicApiKey = 'sk-ant-upstream-secret-0000000000'

/**
 * msw handlers standing in for Anthropic: `/v1/messages` enforces Anthropic's rules
 * (`checkAnthropicRequest`), then answers as the test says (JSON, raw SSE frames, errors, or the
 * fake model), `/v1/messages/count_tokens` answers `{input_tokens}`; every call is recorded.
 */
export function anthropicHandlers(state: {
  calls: UpstreamCallRecord[]
  behaviour: () => UpstreamBehaviour
  inputTokens?: number
}) {
  return [
    http.post(`${anthropicBaseUrl}/v1/messages`, async ({ request }) => {
      const body = await request.text()
      state.calls.push({ url: request.url, headers: request.headers, body, signal: request.signal })
      const parsed = parseBody(body)
      // Anthropic's rules hold whatever the test scripted: a request they refuse gets its 400.
      const refused = parsed === undefined ? undefined : checkAnthropicRequest(parsed)
      if (refused !== undefined) return HttpResponse.json(refused.body, { status: refused.status })
      const behaviour = state.behaviour()
      if (behaviour.kind === 'model') return modelAnswer(anthropicModelAnswer(parsed ?? {}))
      // A scripted answer's signatures are the upstream's own: valid when they come back.
      if (behaviour.kind === 'json') recordScriptedThinking({ body: behaviour.body })
      if (behaviour.kind === 'sse') recordScriptedThinking({ frames: behaviour.frames })
      return answer(behaviour, request.signal)
    }),
    http.post(`${anthropicBaseUrl}/v1/messages/count_tokens`, async ({ request }) => {
      const body = await request.text()
      state.calls.push({ url: request.url, headers: request.headers, body, signal: request.signal })
      return HttpResponse.json({ input_tokens: state.inputTokens ?? 42 })
    }),
  ]
}

/** A `message` body as Anthropic sends it. */
export function anthropicMessage(
  content: object[],
  options: { stopReason?: string; usage?: object; model?: string } = {},
) {
  return {
    id: 'msg_01upstream',
    type: 'message',
    role: 'assistant',
    model: options.model ?? 'claude-sonnet-4-5-20250929',
    content,
    stop_reason: options.stopReason ?? 'end_turn',
    stop_sequence: null,
    usage: options.usage ?? {
      input_tokens: 25,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 10,
      output_tokens: 12,
    },
  }
}

/** Anthropic SSE frames for one text answer, as the API writes them. */
export function anthropicTextFrames(
  pieces: readonly string[],
  options: { failAfterText?: boolean } = {},
): string[] {
  const frame = (type: string, data: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  const frames = [
    frame('message_start', {
      message: {
        id: 'msg_01stream',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 30,
          cache_creation_input_tokens: 5,
          cache_read_input_tokens: 7,
          output_tokens: 1,
        },
      },
    }),
    frame('ping', {}),
    frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...pieces.map((text) =>
      frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
    ),
  ]
  if (options.failAfterText === true) {
    frames.push(frame('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }))
    return frames
  }
  frames.push(
    frame('content_block_stop', { index: 0 }),
    frame('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: pieces.length },
    }),
    frame('message_stop', {}),
  )
  return frames
}
