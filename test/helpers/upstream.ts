import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { checkOpenAIRequest, openAIModelAnswer } from './fakes/openai-fake'

/** The base URL of the mocked OpenAI upstream, as an OpenAI-family base URL (with `/v1`). */
export const upstreamBaseUrl = 'https://upstream.test/v1'

/** The upstream API key the gateway must send (never the client's). */
export const upstreamApiKey = 'sk-upstream-secret-key-000000000000'

/** One call the mocked upstream received. */
export type UpstreamCallRecord = {
  url: string
  headers: Headers
  body: string
  signal: AbortSignal
}

/** How the mocked upstream answers the next calls. */
export type UpstreamBehaviour =
  | { kind: 'json'; body: unknown; status?: number; headers?: Record<string, string> }
  | { kind: 'sse'; frames: readonly string[]; delayMs?: number; failAfter?: number }
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  /** Exactly these bytes, with these headers: for upstreams that answer what they should not. */
  | { kind: 'raw'; status?: number; body: string; headers: Record<string, string> }
  | { kind: 'network-error' }
  | { kind: 'hang' }
  | { kind: 'controlled'; stream: ControlledStream }
  /** The fake model answers, as the vendor would (see `fakes/`): tool calls, text, JSON. */
  | { kind: 'model' }

/** A stream the test feeds by hand, seeing whether the gateway cancelled it. */
export type ControlledStream = {
  push(frame: string): void
  close(): void
  readonly cancelled: Promise<void>
  body: ReadableStream<Uint8Array>
}

const encoder = new TextEncoder()

/** A stream pushed by the test; `cancelled` resolves when the reader cancels it. */
export function controlledStream(): ControlledStream {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let onCancel!: () => void
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve))
  const body = new ReadableStream<Uint8Array>({
    start: (streamController) => void (controller = streamController),
    cancel: () => onCancel(),
  })
  return {
    push: (frame) => controller.enqueue(encoder.encode(frame)),
    close: () => controller.close(),
    cancelled,
    body,
  }
}

/**
 * An msw server standing in for an OpenAI-compatible upstream: it records every call (URL,
 * headers, body, signal) and answers as the test says, with the vendor's wire format. POST
 * streams are `ReadableStream` bodies, since msw's `sse()` only serves GET.
 */
export function createMockUpstream() {
  const calls: UpstreamCallRecord[] = []
  let behaviour: UpstreamBehaviour = { kind: 'json', body: chatCompletion('Hello!') }
  /** Behaviours for the next calls, one each, before `behaviour` holds again. */
  let inTurn: UpstreamBehaviour[] = []
  const server = setupServer(
    http.post(`${upstreamBaseUrl}/chat/completions`, async ({ request }) => {
      const body = await request.text()
      calls.push({ url: request.url, headers: request.headers, body, signal: request.signal })
      const parsed = parseBody(body)
      // OpenAI's rules hold whatever the test scripted: a request they refuse gets OpenAI's 400.
      const refused = parsed === undefined ? undefined : checkOpenAIRequest(parsed)
      if (refused !== undefined) return HttpResponse.json(refused.body, { status: refused.status })
      const current = inTurn.shift() ?? behaviour
      if (current.kind === 'model') return modelAnswer(openAIModelAnswer(parsed ?? {}))
      return answer(current, request.signal)
    }),
  )
  return {
    server,
    calls,
    /** Sets how the upstream answers from now on. */
    answer(next: UpstreamBehaviour) {
      behaviour = next
      inTurn = []
    },
    /** Answers the next calls with these behaviours, one each (a stream serves one call). */
    answerInTurn(next: UpstreamBehaviour[]) {
      inTurn = [...next]
    },
    lastCall(): UpstreamCallRecord {
      const call = calls.at(-1)
      if (call === undefined) throw new Error('The upstream received no call.')
      return call
    },
    lastBody(): Record<string, unknown> {
      return JSON.parse(this.lastCall().body) as Record<string, unknown>
    },
  }
}

/** The response for a behaviour, shared by the OpenAI and Anthropic mocks. */
export function answer(
  behaviour: UpstreamBehaviour,
  signal: AbortSignal,
): Response | Promise<Response> {
  switch (behaviour.kind) {
    case 'json':
      return HttpResponse.json(behaviour.body as object, {
        status: behaviour.status ?? 200,
        headers: behaviour.headers,
      })
    case 'error':
      return HttpResponse.json(behaviour.body as object, {
        status: behaviour.status,
        headers: behaviour.headers,
      })
    case 'raw':
      return new HttpResponse(behaviour.body, {
        status: behaviour.status ?? 200,
        headers: behaviour.headers,
      })
    case 'network-error':
      return HttpResponse.error()
    case 'hang':
      // Never answers; once the gateway aborts, the connection just fails.
      return new Promise<Response>((resolve) => {
        signal.addEventListener('abort', () => resolve(HttpResponse.error()), { once: true })
      })
    case 'sse':
      return new HttpResponse(sseBody(behaviour), {
        headers: { 'content-type': 'text/event-stream' },
      })
    case 'controlled':
      return new HttpResponse(behaviour.stream.body, {
        headers: { 'content-type': 'text/event-stream' },
      })
    case 'model':
      throw new Error('The vendor handler answers `model` behaviours itself.')
    default: {
      const unknown: never = behaviour
      throw new Error(`Unknown behaviour ${JSON.stringify(unknown)}`)
    }
  }
}

/** A JSON body, or `undefined` when the text is not a JSON object. */
export function parseBody(text: string): Record<string, any> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, any>)
      : undefined
  } catch {
    return undefined
  }
}

/** A fake model's answer as an HTTP response: JSON, or an SSE stream of its frames. */
export function modelAnswer(result: { json: object } | { frames: string[] }): Response {
  if ('json' in result) return HttpResponse.json(result.json)
  return new HttpResponse(sseBody({ kind: 'sse', frames: result.frames }), {
    headers: { 'content-type': 'text/event-stream' },
  })
}

function sseBody(
  behaviour: Extract<UpstreamBehaviour, { kind: 'sse' }>,
): ReadableStream<Uint8Array> {
  let index = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (behaviour.failAfter !== undefined && index >= behaviour.failAfter) {
        // As on a real socket, the bytes sent before the reset have been read by then.
        await new Promise((resolve) => setTimeout(resolve, 20))
        controller.error(new TypeError('upstream connection reset'))
        return
      }
      const frame = behaviour.frames[index]
      if (frame === undefined) {
        controller.close()
        return
      }
      if (behaviour.delayMs !== undefined)
        await new Promise((r) => setTimeout(r, behaviour.delayMs))
      controller.enqueue(encoder.encode(frame))
      index += 1
    },
  })
}

/** A `chat.completion` body as OpenAI sends it. */
export function chatCompletion(
  content: string,
  usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  model = 'gpt-4o-mini-2024-07-18',
) {
  return {
    id: 'chatcmpl-upstream1',
    object: 'chat.completion',
    created: 1_763_000_000,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: {
      ...usage,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    },
    system_fingerprint: 'fp_test',
  }
}

/**
 * The SSE frames of an OpenAI stream, as the API writes them: role chunk, content chunks, finish
 * chunk, the usage chunk (when `includeUsage`) and `[DONE]`.
 */
export function chatStreamFrames(
  pieces: readonly string[],
  options: { includeUsage?: boolean; usage?: object; cachedTokens?: number } = {},
): string[] {
  const base = {
    id: 'chatcmpl-upstream2',
    object: 'chat.completion.chunk',
    created: 1_763_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    system_fingerprint: 'fp_test',
  }
  const usageField = options.includeUsage === true ? { usage: null } : {}
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...usageField })}\n\n`
  const frames = [chunk({ role: 'assistant', content: '', refusal: null }, null)]
  for (const piece of pieces) frames.push(chunk({ content: piece }, null))
  frames.push(chunk({}, 'stop'))
  if (options.includeUsage === true) {
    const usage = options.usage ?? {
      prompt_tokens: 21,
      completion_tokens: pieces.length,
      total_tokens: 21 + pieces.length,
      prompt_tokens_details: { cached_tokens: options.cachedTokens ?? 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    }
    frames.push(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`)
  }
  frames.push('data: [DONE]\n\n')
  return frames
}
