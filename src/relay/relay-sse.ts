import { GatewayError } from '../errors'
import type { AnswerHeaders, AnswerStream, GatewayAnswer } from '../http/gateway-answer'
import { createSseReader } from '../sse/sse-reader'
import { streamDeadlineError } from '../upstream/classify-failure'
import type { UpstreamExchange } from '../upstream/exchange'
import type { ChunkSource } from '../sse/chunk-source'
import { scrubGatewayError, type SecretScrubber } from '../upstream/secret-scrubber'
import type { MeteredRequest } from './metered-request'
import type { UsageOutcome } from '../usage/usage-meter'
import type { SseTranslator, TranslatedFrames } from '../canonical/sse-translator'

/** Options of the SSE relay. */
export type SseRelayOptions = {
  exchange: UpstreamExchange
  metered: MeteredRequest
  translator: SseTranslator
  idleTimeoutMs: number
  maxEventBytes: number
  /** Set when the exchange has a deadline (`maxStreamMs`): the stream ends when it passes. */
  maxStreamMs?: number | undefined
  /** Scrubs the upstream's secrets from error frames and errors. */
  scrub: SecretScrubber
  /** Called once the stream has ended, however it ended; with the error when it failed. */
  onEnd: (outcome: UsageOutcome, error: GatewayError | undefined) => void
}

/** How long an abnormal end waits after the error frame was read (see `abortAfterFailure`). */
const abortGraceMs = 100

/**
 * Relays an upstream SSE stream (the answer's body, or what the provider's stream reader made of
 * it) to the client through a translator.
 *
 * Nothing is sent until the upstream's first frame for the client exists: until then an upstream
 * failure, an error event, or a body that ends, is answered with its real status as JSON
 * (so the client sees the upstream's real status, not a 200 with an error inside). Frames then flow as the client pulls them, so backpressure reaches the
 * upstream. A failure after the first byte — a broken connection, an upstream error event, a
 * stream that ends without its terminator, the `maxStreamMs` deadline — becomes the client
 * protocol's in-stream error frame, scrubbed of the upstream's secrets; then the stream closes,
 * or, for clients that only notice a failure that way (`translator.abortAfterFailure`), ends
 * abnormally once the frame is read. Usage settles before the last bytes are queued.
 *
 * @throws GatewayError before the first byte, for the caller to render as JSON
 */
export async function relaySse(
  events: ChunkSource | null,
  options: SseRelayOptions,
): Promise<GatewayAnswer> {
  const { exchange, metered, translator, scrub } = options
  if (events === null) {
    throw new GatewayError('upstream_error', 'The upstream answered a stream request with no body.')
  }
  const reader = createSseReader(events, {
    maxBufferSize: options.maxEventBytes,
    signal: exchange.signal,
  })
  let ended = false
  // The settle of a shared meter, in flight: the stream's last bytes wait for it (issue 33).
  let settlingUsage: Promise<void> | undefined
  const end = (outcome: UsageOutcome, error?: GatewayError) => {
    if (ended) return
    ended = true
    exchange.dispose()
    settlingUsage = metered.finish(outcome, 200, translator.usage(), 'answered')
    options.onEnd(outcome, error)
  }

  // Read until the client has something to receive; an error before that is answered as JSON.
  let first: TranslatedFrames
  for (;;) {
    const message = await reader.next()
    // Comments (keep-alives) prove nothing about the answer: keep waiting for a real event.
    if (message?.type === 'comment') continue
    if (message === undefined) {
      await reader.cancel()
      throw (
        translator.end().error ??
        new GatewayError(
          'upstream_error',
          'The upstream closed the stream before sending any event.',
        )
      )
    }
    first = translator.push(message)
    if (first.error !== undefined) {
      await reader.cancel()
      throw first.error
    }
    if (first.frames.length > 0 || first.final !== undefined) break
  }
  exchange.startIdleWatch(options.idleTimeoutMs)

  // A frame that carries an error object (an upstream `error` event a stream goes on after, as
  // Responses streams do) is scrubbed too; `"error"` unescaped only occurs as a key or a value.
  const scrubErrors = (frame: string) => (frame.includes('"error"') ? scrub(frame) : frame)
  // Text ready for the client: every frame since the last piece was handed out, so that all the
  // events of one upstream read go out as one piece (one encode, one socket write).
  let ready = ''
  let closed = false
  // Set once the error frame is queued, for a translator that ends the connection abnormally.
  let abortWith: GatewayError | undefined
  const finish = (outcome: UsageOutcome, frames: string[], error?: GatewayError) => {
    if (closed) return
    closed = true
    const failed = outcome === 'error'
    const clean = failed && error !== undefined ? scrubGatewayError(error, scrub) : error
    end(outcome, clean)
    for (const frame of frames) ready += failed ? scrub(frame) : frame
    void reader.cancel()
    // The error frame must be read before the stream errors: erroring drops queued chunks.
    if (failed && translator.abortAfterFailure === true) abortWith = clean ?? upstreamFailed()
  }
  const write = (result: TranslatedFrames): boolean => {
    // The deadline may have ended the stream while a read or a settle was pending.
    if (closed) return true
    if (result.final !== undefined) {
      finish(result.final, result.frames, result.error)
      return true
    }
    for (const frame of result.frames) ready += scrubErrors(frame)
    return result.frames.length > 0
  }

  // The translator's end-of-answer work (a response-store write) finishes before the last frames
  // go out; other frames are written without waiting for anything.
  const settling = (result: TranslatedFrames): Promise<void> | undefined =>
    result.final === undefined ? undefined : translator.settle?.()

  const fail = (why: string | undefined, error: unknown) => {
    if (why === 'client') {
      finish('aborted', [])
      return
    }
    const failure = scrubGatewayError(midStreamError(why, error), scrub)
    finish('error', [translator.failure(failure)], failure)
  }

  if (options.maxStreamMs !== undefined) {
    // At the deadline the stream ends at once, even when the client is not reading: its usage is
    // settled then, not whenever the client pulls again.
    exchange.signal.addEventListener('abort', () => {
      if (exchange.end() === 'deadline') fail('deadline', undefined)
    })
  }
  await settling(first)
  write(first)

  const take = (): string | undefined => {
    const piece = ready
    ready = ''
    return piece === '' ? undefined : piece
  }
  // The last piece goes out once the request is settled: a client that has read the whole stream
  // and sends its next request finds this one no longer holding its reservation. Only the pieces
  // after the end pay for the wait; the others stay one synchronous take.
  const takeSettled = async (): Promise<string | undefined> => {
    const settled = settlingUsage
    settlingUsage = undefined
    if (settled !== undefined) await settled
    return take()
  }
  const nextPiece = (): string | undefined | Promise<string | undefined> =>
    closed && settlingUsage !== undefined ? takeSettled() : take()
  const body: AnswerStream = {
    get done() {
      return closed && ready === '' && abortWith === undefined
    },
    async next() {
      if (ready !== '') return nextPiece()
      if (abortWith !== undefined) {
        // The error object has just been read from us; a client's HTTP stack drops the chunks it
        // has received but not yet handed out when the connection fails, so give it a moment to
        // hand out the text before the end.
        const failure = abortWith
        await new Promise((resolve) => setTimeout(resolve, abortGraceMs))
        throw failure
      }
      if (closed) return nextPiece()
      try {
        for (;;) {
          // Already parsed events are taken as they are; a promise only when a read is needed.
          const message = reader.take() ?? (await reader.next())
          if (closed) break
          if (message === undefined) {
            const last = translator.end()
            await settling(last)
            finish(last.final ?? 'ok', last.frames, last.error)
            break
          }
          exchange.touch()
          const result = translator.push(message)
          const pending = settling(result)
          if (pending !== undefined) await pending
          // Frames go out once no further event is already parsed: one piece per upstream read.
          if (write(result) && !reader.buffered()) break
        }
      } catch (error) {
        fail(exchange.end(), error)
      }
      return nextPiece()
    },
    cancel() {
      exchange.abort('client')
      end('aborted')
      void reader.cancel()
    },
  }
  const headers: AnswerHeaders = new Map([
    ['content-type', 'text/event-stream; charset=utf-8'],
    ['cache-control', 'no-cache'],
    ['x-accel-buffering', 'no'],
  ])
  return { status: 200, headers, body }
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

function upstreamFailed(): GatewayError {
  return new GatewayError('upstream_error', 'The upstream failed mid-stream.')
}
