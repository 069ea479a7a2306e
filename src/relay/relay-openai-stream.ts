import { GatewayError } from '../errors'
import { isJsonObject, parseJson } from '../internal/json'
import { openAIStreamErrorFrame } from '../protocols/openai/errors'
import { readOpenAIUsage } from '../protocols/openai/usage'
import { createSseReader, type SseReader } from '../sse/sse-reader'
import { serializeSse } from '../sse/serialize'
import type { SseMessage } from '../sse/sse-message'
import type { UpstreamExchange } from '../upstream/exchange'
import type { MeteredRequest } from '../usage/metered-request'
import type { TokenUsage, UsageOutcome } from '../usage/usage-meter'

/** Options of the OpenAI stream relay. */
export type OpenAIStreamRelayOptions = {
  exchange: UpstreamExchange
  metered: MeteredRequest
  /** Whether the client itself asked for `stream_options.include_usage`. */
  clientWantsUsage: boolean
  idleTimeoutMs: number
  maxEventBytes: number
  /** Called once the stream has ended, however it ended. */
  onEnd: (outcome: UsageOutcome) => void
}

const encoder = new TextEncoder()
/** A usage object in a chunk; `"usage":null` chunks do not match. Escaped text in content cannot. */
const usagePattern = /"usage"\s*:\s*\{/
const errorPattern = /^\s*\{\s*"error"\s*:/

/**
 * Relays an OpenAI SSE stream to a chat-completions client.
 *
 * Nothing is sent until the first upstream event has arrived: until then an upstream failure can
 * still be answered with its real status as JSON (checklist ERR-05). Events then flow one by one,
 * pulled by the client (backpressure reaches the upstream). Each event's data is forwarded as the
 * upstream wrote it; only chunks carrying a usage object are parsed, to meter them, and the
 * usage-only chunk the gateway asked for is dropped when the client did not ask for it. A failure
 * after the first byte becomes the spec's `event: error` frame, then the stream closes.
 *
 * @throws GatewayError before the first byte, for the caller to render as JSON
 */
export async function relayOpenAIStream(
  upstream: Response,
  options: OpenAIStreamRelayOptions,
): Promise<Response> {
  const { exchange, metered } = options
  if (upstream.body === null) {
    throw new GatewayError('upstream_error', 'The upstream answered a stream request with no body.')
  }
  const reader = createSseReader(upstream.body, {
    maxBufferSize: options.maxEventBytes,
    signal: exchange.signal,
  })
  let usage: TokenUsage | undefined
  let ended = false

  const first = await readFirstEvent(reader)
  if (first.type === 'event' && errorPattern.test(first.data)) {
    await reader.cancel()
    const parsed = parseJson(first.data)
    throw new GatewayError(
      'upstream_error',
      upstreamErrorMessage(parsed.ok ? parsed.value : undefined),
      {
        upstream: { status: 502, body: parsed.ok ? parsed.value : undefined },
      },
    )
  }
  exchange.startIdleWatch(options.idleTimeoutMs)

  const end = (outcome: UsageOutcome) => {
    if (ended) return
    ended = true
    exchange.dispose()
    metered.finish(outcome, 200, usage)
    options.onEnd(outcome)
  }

  /** Turns one upstream message into the bytes the client gets, or `undefined` to drop it. */
  const translate = (message: SseMessage): Uint8Array | undefined => {
    if (message.type === 'comment') return encoder.encode(serializeSse(message))
    const data = message.data
    if (usagePattern.test(data)) {
      const parsed = parseJson(data)
      if (parsed.ok && isJsonObject(parsed.value)) {
        usage = readOpenAIUsage(parsed.value['usage']) ?? usage
        const choices = parsed.value['choices']
        const usageOnly = !Array.isArray(choices) || choices.length === 0
        if (usageOnly && !options.clientWantsUsage) return undefined
      }
    }
    return encoder.encode(serializeSse(message))
  }

  /**
   * Ends the client stream. Usage settles before the last bytes are queued, so a client that has
   * read the end of the stream can already see its usage in `GET /v1/usage`.
   */
  const finish = (
    controller: ReadableStreamDefaultController<Uint8Array>,
    outcome: UsageOutcome,
    last?: Uint8Array,
  ) => {
    end(outcome)
    if (last !== undefined) controller.enqueue(last)
    controller.close()
    void reader.cancel()
  }

  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const bytes = translate(first)
        if (first.type === 'event' && first.data === '[DONE]') finish(controller, 'ok', bytes)
        else if (bytes !== undefined) controller.enqueue(bytes)
      },
      async pull(controller) {
        try {
          for (;;) {
            const value = await reader.next()
            if (value === undefined) {
              finish(controller, 'ok')
              return
            }
            exchange.touch()
            if (value.type === 'event' && errorPattern.test(value.data)) {
              // An upstream error inside the stream: give it the spec's `event: error` framing.
              finish(controller, 'error', encoder.encode(`event: error\ndata: ${value.data}\n\n`))
              return
            }
            const bytes = translate(value)
            if (value.type === 'event' && value.data === '[DONE]') {
              finish(controller, 'ok', bytes)
              return
            }
            if (bytes !== undefined) {
              controller.enqueue(bytes)
              return
            }
          }
        } catch (error) {
          const why = exchange.end()
          if (why === 'client') finish(controller, 'aborted')
          else {
            const frame = openAIStreamErrorFrame(midStreamError(why, error))
            finish(controller, 'error', encoder.encode(frame))
          }
        }
      },
      cancel() {
        exchange.abort('client')
        end('aborted')
        void reader.cancel()
      },
    },
    { highWaterMark: 0 },
  )

  return new Response(stream, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    },
  })
}

/** Waits for the first upstream event; a stream that ends first is an upstream failure. */
async function readFirstEvent(reader: SseReader): Promise<SseMessage> {
  for (;;) {
    const value = await reader.next()
    if (value === undefined) {
      throw new GatewayError(
        'upstream_error',
        'The upstream closed the stream before sending any event.',
      )
    }
    // Comments (keep-alives) prove nothing about the answer: keep waiting for a real event.
    if (value.type === 'event') return value
  }
}

function midStreamError(why: string | undefined, cause: unknown): GatewayError {
  if (why === 'idle' || why === 'timeout') {
    return new GatewayError('upstream_timeout', 'The upstream stopped sending events mid-stream.', {
      cause,
    })
  }
  if (GatewayError.isInstance(cause)) return cause
  return new GatewayError('upstream_error', 'The upstream connection failed mid-stream.', { cause })
}

function upstreamErrorMessage(body: unknown): string {
  if (
    isJsonObject(body) &&
    isJsonObject(body['error']) &&
    typeof body['error']['message'] === 'string'
  ) {
    return body['error']['message']
  }
  return 'The upstream sent an error instead of a stream.'
}
