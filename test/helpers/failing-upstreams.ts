import { anthropicModelAnswer, checkAnthropicRequest } from './fakes/anthropic-fake'
import { checkGeminiRequest, geminiModelAnswer } from './fakes/gemini-fake'
import { checkOpenAIRequest, openAIModelAnswer } from './fakes/openai-fake'
import { checkResponsesRequest, responsesModelAnswer } from './fakes/responses-fake'
import type { UpstreamKind } from './upstream-usage'

/** What an upstream does with one call, on cue. */
export type Cue =
  /** The fake model answers, JSON or stream, as the vendor would. */
  | { kind: 'ok' }
  /** The connection is refused: `fetch` rejects before any answer. */
  | { kind: 'connect' }
  /** The vendor's error answer for this status, in its own shape, with these headers. */
  | { kind: 'status'; status: number; headers?: Record<string, string>; code?: string }
  /** A 200 event stream whose first event is the vendor's overloaded (or server) error. */
  | { kind: 'error-event' }
  /** The model's answer, cut off by a reset after its first event (JSON: after its first bytes). */
  | { kind: 'reset-after-first-byte' }
  /** No answer until the call is aborted. */
  | { kind: 'hang' }

/** One call an upstream received. */
export type FailingCall = { host: string; url: string; body: Record<string, any>; cue: Cue }

const encoder = new TextEncoder()

/**
 * Upstreams of one vendor that fail on cue, served through the gateway's `fetch`: each is a host
 * (`https://<name>.test`, OpenAI-family base URLs with `/v1`), and `script` says what it does
 * with its n-th call. Requests are held to the vendor's rules before any cue (a request the vendor
 * would refuse gets its 400), errors are the vendor's own shapes and statuses, and every answer
 * the fake model gave is kept (`answers`) so that tests can check the usage the gateway metered.
 */
export function failingUpstreams(kind: UpstreamKind, script: (host: string, call: number) => Cue) {
  const calls: FailingCall[] = []
  const answers: string[] = []
  const counts = new Map<string, number>()
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init)
    const url = new URL(request.url)
    const host = url.hostname.replace(/\.test$/, '')
    const text = await request.text()
    const body = JSON.parse(text) as Record<string, any>
    const call = (counts.get(host) ?? 0) + 1
    counts.set(host, call)
    const cue = script(host, call)
    calls.push({ host, url: request.url, body, cue })
    const model = decodeURIComponent(/\/models\/([^:]+):/.exec(url.pathname)?.[1] ?? '')
    const stream = body['stream'] === true || url.pathname.includes(':streamGenerateContent')
    const refused = check(kind, model, body)
    if (refused !== undefined) return Response.json(refused.body, { status: refused.status })
    switch (cue.kind) {
      case 'connect':
        throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') })
      case 'hang':
        return new Promise<Response>((_, reject) =>
          request.signal.addEventListener('abort', () => reject(request.signal.reason)),
        )
      case 'status':
        return Response.json(vendorError(kind, cue.status, cue.code), {
          status: cue.status,
          headers: cue.headers,
        })
      case 'error-event':
        return eventStream([errorEvent(kind)], false)
      case 'ok':
      case 'reset-after-first-byte': {
        const result = modelAnswer(kind, model, body, stream)
        const whole = 'json' in result ? JSON.stringify(result.json) : result.frames.join('')
        if (cue.kind === 'ok') answers.push(whole)
        if ('json' in result) {
          return cue.kind === 'ok'
            ? Response.json(result.json)
            : new Response(cutOff([whole.slice(0, 20)]), {
                headers: { 'content-type': 'application/json' },
              })
        }
        return eventStream(
          cue.kind === 'ok' ? result.frames : result.frames.slice(0, 2),
          cue.kind !== 'ok',
        )
      }
      default: {
        const unknown: never = cue
        throw new Error(`Unknown cue ${JSON.stringify(unknown)}`)
      }
    }
  }
  return {
    fetch,
    calls,
    answers,
    /** The calls each host received, by host name. */
    callsTo: (host: string) => calls.filter((call) => call.host === host).length,
  }
}

/** An upstream's base URL for a host name, by its family's convention. */
export function baseUrlOf(kind: UpstreamKind, host: string): string {
  return kind === 'openai' || kind === 'responses'
    ? `https://${host}.test/v1`
    : `https://${host}.test`
}

function check(kind: UpstreamKind, model: string, body: Record<string, any>) {
  switch (kind) {
    case 'openai':
      return checkOpenAIRequest(body)
    case 'anthropic':
      return checkAnthropicRequest(body)
    case 'gemini':
      return checkGeminiRequest(model, body)
    case 'responses':
      return checkResponsesRequest(body)
  }
}

function modelAnswer(
  kind: UpstreamKind,
  model: string,
  body: Record<string, any>,
  stream: boolean,
) {
  switch (kind) {
    case 'openai':
      return openAIModelAnswer(body)
    case 'anthropic':
      return anthropicModelAnswer(body)
    case 'gemini':
      return geminiModelAnswer(model, body, stream)
    case 'responses':
      return responsesModelAnswer(body)
  }
}

function eventStream(frames: readonly string[], reset: boolean): Response {
  return new Response(reset ? cutOff(frames) : whole(frames), {
    headers: { 'content-type': 'text/event-stream' },
  })
}

function whole(frames: readonly string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const frame of frames) controller.enqueue(encoder.encode(frame))
      controller.close()
    },
  })
}

/** The pieces, then a connection reset (once the pieces had time to be read). */
function cutOff(pieces: readonly string[]): ReadableStream<Uint8Array> {
  let index = 0
  return new ReadableStream({
    async pull(controller) {
      const piece = pieces[index++]
      if (piece !== undefined) {
        controller.enqueue(encoder.encode(piece))
        return
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
      controller.error(new TypeError('terminated', { cause: new Error('read ECONNRESET') }))
    },
  })
}

const openAIErrors: Record<number, [string, string, string | null]> = {
  400: ['Invalid value for messages.', 'invalid_request_error', null],
  401: ['Incorrect API key provided: sk-upstr***0000.', 'invalid_request_error', 'invalid_api_key'],
  403: ['You are not allowed to sample from this model', 'invalid_request_error', null],
  408: ['Request timed out.', 'invalid_request_error', null],
  409: ['The request conflicted with another request.', 'invalid_request_error', null],
  429: [
    'Rate limit reached for requests. Please try again in 20ms.',
    'requests',
    'rate_limit_exceeded',
  ],
  500: [
    'The server had an error while processing your request. Sorry about that!',
    'server_error',
    null,
  ],
  502: ['Bad gateway.', 'server_error', null],
  503: ['The engine is currently overloaded, please try again later.', 'server_error', null],
  504: ['Gateway timeout.', 'server_error', null],
}

const anthropicTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  408: 'timeout_error',
  409: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
}

const googleStatuses: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
}

/** The vendor's error body for a status, as its API writes it. */
export function vendorError(kind: UpstreamKind, status: number, code?: string): object {
  if (kind === 'anthropic') {
    const type = anthropicTypes[status] ?? 'api_error'
    return {
      type: 'error',
      error: { type, message: type === 'overloaded_error' ? 'Overloaded' : `HTTP ${status}` },
      request_id: 'req_011CFailingUpstream',
    }
  }
  if (kind === 'gemini') {
    const rpc = googleStatuses[status] ?? 'INTERNAL'
    return { error: { code: status, message: `The service answered ${rpc}.`, status: rpc } }
  }
  const [message, type, defaultCode] = openAIErrors[status] ?? [
    `HTTP ${status}`,
    'server_error',
    null,
  ]
  return { error: { message, type, param: null, code: code ?? defaultCode } }
}

/** The vendor's error event at the start of a 200 stream: overloaded, or a server error. */
function errorEvent(kind: UpstreamKind): string {
  switch (kind) {
    case 'anthropic':
      return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`
    case 'gemini':
      return `data: ${JSON.stringify({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } })}\n\n`
    case 'openai':
      return `data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } })}\n\n`
    case 'responses':
      return `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_is_overloaded', message: 'The server is overloaded.', param: null, sequence_number: 0 })}\n\n`
  }
}
