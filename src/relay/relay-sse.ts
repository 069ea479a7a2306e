import { GatewayError } from '../errors'
import { createSseReader } from '../sse/sse-reader'
import { streamDeadlineError } from '../upstream/classify-failure'
import type { UpstreamExchange } from '../upstream/exchange'
import type { MeteredRequest } from '../usage/metered-request'
import type { UsageOutcome } from '../usage/usage-meter'
import type { SseTranslator, TranslatedFrames } from './sse-translator'

/** Options of the SSE relay. */
export type SseRelayOptions = {
  exchange: UpstreamExchange
  metered: MeteredRequest
  translator: SseTranslator
  idleTimeoutMs: number
  maxEventBytes: number
  /** Set when the exchange has a deadline (`maxStreamMs`): the stream ends when it passes. */
  maxStreamMs?: number | undefined
  /** Called once the stream has ended, however it ended. */
  onEnd: (outcome: UsageOutcome) => void
}

const encoder = new TextEncoder()

/**
 * Relays an upstream SSE stream to the client through a translator.
 *
 * Nothing is sent until the upstream's first frame for the client exists: until then an upstream
 * failure, or an error event, is answered with its real status as JSON (checklist ERR-05). Frames
 * then flow as the client pulls them, so backpressure reaches the upstream. A failure after the
 * first byte becomes the client protocol's in-stream error frame, then the stream closes. Usage
 * settles before the last bytes are queued.
 *
 * @throws GatewayError before the first byte, for the caller to render as JSON
 */
export async function relaySse(upstream: Response, options: SseRelayOptions): Promise<Response> {
  const { exchange, metered, translator } = options
  if (upstream.body === null) {
    throw new GatewayError('upstream_error', 'The upstream answered a stream request with no body.')
  }
  const reader = createSseReader(upstream.body, {
    maxBufferSize: options.maxEventBytes,
    signal: exchange.signal,
  })
  let ended = false
  const end = (outcome: UsageOutcome) => {
    if (ended) return
    ended = true
    exchange.dispose()
    metered.finish(outcome, 200, translator.usage())
    options.onEnd(outcome)
  }

  // Read until the client has something to receive; an error before that is answered as JSON.
  let first: TranslatedFrames
  for (;;) {
    const message = await reader.next()
    // Comments (keep-alives) prove nothing about the answer: keep waiting for a real event.
    if (message?.type === 'comment') continue
    first = message === undefined ? translator.end() : translator.push(message)
    if (first.error !== undefined) {
      await reader.cancel()
      throw first.error
    }
    if (first.frames.length > 0 || first.final !== undefined) break
    if (message === undefined) {
      throw new GatewayError(
        'upstream_error',
        'The upstream closed the stream before sending any event.',
      )
    }
  }
  exchange.startIdleWatch(options.idleTimeoutMs)

  let closed = false
  const finish = (
    controller: ReadableStreamDefaultController<Uint8Array>,
    outcome: UsageOutcome,
    frames: string[],
  ) => {
    if (closed) return
    closed = true
    end(outcome)
    for (const frame of frames) controller.enqueue(encoder.encode(frame))
    controller.close()
    void reader.cancel()
  }
  const write = (
    controller: ReadableStreamDefaultController<Uint8Array>,
    result: TranslatedFrames,
  ): boolean => {
    // The deadline may have ended the stream while a read or a settle was pending.
    if (closed) return true
    if (result.final !== undefined) {
      finish(controller, result.final, result.frames)
      return true
    }
    for (const frame of result.frames) controller.enqueue(encoder.encode(frame))
    return result.frames.length > 0
  }

  // The translator's end-of-answer work (a response-store write) finishes before the last frames
  // go out; other frames are written without waiting for anything.
  const settling = (result: TranslatedFrames): Promise<void> | undefined =>
    result.final === undefined ? undefined : translator.settle?.()

  const fail = (
    controller: ReadableStreamDefaultController<Uint8Array>,
    why: string | undefined,
    error: unknown,
  ) => {
    if (why === 'client') finish(controller, 'aborted', [])
    else finish(controller, 'error', [translator.failure(midStreamError(why, error))])
  }

  const stream = new ReadableStream<Uint8Array>(
    {
      async start(controller) {
        if (options.maxStreamMs !== undefined) {
          // At the deadline the stream ends at once, even when the client is not reading: its
          // usage is settled then, not whenever the client pulls again.
          exchange.signal.addEventListener('abort', () => {
            if (exchange.end() === 'deadline') fail(controller, 'deadline', undefined)
          })
        }
        await settling(first)
        write(controller, first)
      },
      async pull(controller) {
        try {
          for (;;) {
            const message = await reader.next()
            if (closed) return
            if (message === undefined) {
              const last = translator.end()
              await settling(last)
              finish(controller, last.final ?? 'ok', last.frames)
              return
            }
            exchange.touch()
            const result = translator.push(message)
            const pending = settling(result)
            if (pending !== undefined) await pending
            if (write(controller, result)) return
          }
        } catch (error) {
          fail(controller, exchange.end(), error)
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

function midStreamError(why: string | undefined, cause: unknown): GatewayError {
  if (why === 'deadline') return streamDeadlineError(cause)
  if (why === 'idle' || why === 'timeout') {
    return new GatewayError('upstream_timeout', 'The upstream stopped sending events mid-stream.', {
      cause,
    })
  }
  if (GatewayError.isInstance(cause)) return cause
  return new GatewayError('upstream_error', 'The upstream connection failed mid-stream.', { cause })
}
