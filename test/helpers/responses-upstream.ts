import { http, HttpResponse } from 'msw'
import { checkResponsesRequest, responsesModelAnswer } from './fakes/responses-fake'
import {
  answer,
  modelAnswer,
  parseBody,
  type UpstreamBehaviour,
  type UpstreamCallRecord,
} from './upstream'

/** The mocked Responses upstream (an OpenAI upstream marked `responses: true`); its base has `/v1`. */
export const responsesBaseUrl = 'https://responses.test/v1'

/** The upstream key the gateway must send as a Bearer token. */
export const responsesApiKey = 'sk-resp-upstream-secret-000000000000'

/**
 * msw handlers standing in for OpenAI's `/v1/responses`: OpenAI's rules are enforced
 * (`checkResponsesRequest`), then it answers as the test says, or as the fake model; every call is
 * recorded.
 */
export function responsesHandlers(state: {
  calls: UpstreamCallRecord[]
  behaviour: () => UpstreamBehaviour
}) {
  return [
    http.post(`${responsesBaseUrl}/responses`, async ({ request }) => {
      const body = await request.text()
      state.calls.push({ url: request.url, headers: request.headers, body, signal: request.signal })
      const parsed = parseBody(body)
      const refused = parsed === undefined ? undefined : checkResponsesRequest(parsed)
      if (refused !== undefined) return HttpResponse.json(refused.body, { status: refused.status })
      const behaviour = state.behaviour()
      if (behaviour.kind === 'model') return modelAnswer(responsesModelAnswer(parsed ?? {}))
      return answer(behaviour, request.signal)
    }),
  ]
}

type Usage = { input: number; cached?: number; output: number; reasoning?: number }

/** A Responses `usage` object as OpenAI writes it. */
export function responsesUsage(usage: Usage) {
  return {
    input_tokens: usage.input,
    input_tokens_details: { cached_tokens: usage.cached ?? 0 },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
    total_tokens: usage.input + usage.output,
  }
}

/** A Response object as OpenAI answers it. */
export function responseObject(
  output: object[],
  usage: Usage | null,
  status = 'completed',
): Record<string, unknown> {
  return {
    id: 'resp_upstream0123456789',
    object: 'response',
    created_at: 1_763_474_589,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: 'gpt-5-2025-08-07',
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: usage === null ? null : responsesUsage(usage),
    user: null,
    metadata: {},
  }
}

/** One output item of a scripted Responses stream. */
export type ScriptedItem =
  | { type: 'message'; pieces: string[] }
  | { type: 'function_call'; callId: string; name: string; pieces: string[] }

/**
 * The SSE frames of a Responses stream as OpenAI writes them: `event:` lines, sequence numbers,
 * `response.created` / `in_progress`, each item's lifecycle, `response.completed` with the usage.
 * `cut: true` leaves the terminal event out (the items' frames only).
 */
export function responsesStreamFrames(
  items: ScriptedItem[],
  usage: Usage,
  options: { cut?: boolean } = {},
): string[] {
  let sequence = 0
  const frame = (type: string, payload: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...payload })}\n\n`
  const frames = [
    frame('response.created', { response: responseObject([], null, 'in_progress') }),
    frame('response.in_progress', { response: responseObject([], null, 'in_progress') }),
  ]
  const done: object[] = []
  items.forEach((item, output_index) => {
    if (item.type === 'message') {
      const id = `msg_up${output_index}`
      const text = item.pieces.join('')
      const part = { type: 'output_text', annotations: [], logprobs: [], text }
      frames.push(
        frame('response.output_item.added', {
          output_index,
          item: { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
        }),
        frame('response.content_part.added', {
          item_id: id,
          output_index,
          content_index: 0,
          part: { ...part, text: '' },
        }),
        ...item.pieces.map((delta) =>
          frame('response.output_text.delta', {
            item_id: id,
            output_index,
            content_index: 0,
            delta,
            logprobs: [],
          }),
        ),
      )
      if (options.cut === true) return
      const full = { id, type: 'message', status: 'completed', content: [part], role: 'assistant' }
      frames.push(
        frame('response.output_text.done', {
          item_id: id,
          output_index,
          content_index: 0,
          text,
          logprobs: [],
        }),
        frame('response.content_part.done', { item_id: id, output_index, content_index: 0, part }),
        frame('response.output_item.done', { output_index, item: full }),
      )
      done.push(full)
    } else {
      const id = `fc_up${output_index}`
      const args = item.pieces.join('')
      const skeleton = {
        id,
        type: 'function_call',
        status: 'in_progress',
        arguments: '',
        call_id: item.callId,
        name: item.name,
      }
      const full = { ...skeleton, status: 'completed', arguments: args }
      frames.push(
        frame('response.output_item.added', { output_index, item: skeleton }),
        ...item.pieces.map((delta) =>
          frame('response.function_call_arguments.delta', { item_id: id, output_index, delta }),
        ),
        frame('response.function_call_arguments.done', {
          item_id: id,
          output_index,
          arguments: args,
        }),
        frame('response.output_item.done', { output_index, item: full }),
      )
      done.push(full)
    }
  })
  if (options.cut !== true)
    frames.push(frame('response.completed', { response: responseObject(done, usage) }))
  return frames
}
