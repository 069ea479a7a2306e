import { createParser } from 'eventsource-parser'
import { GatewayError } from '../errors'
import { isJsonObject, parseJson } from '../internal/json'
import type { SseMessage } from './sse-message'

/** Options of the SSE reader. */
export type SseReaderOptions = {
  /** The largest event, in characters, before the stream fails (guards memory). */
  maxBufferSize: number
  /** Aborting it cancels the body and makes the next read throw the signal's reason. */
  signal?: AbortSignal
}

/** Pulls SSE messages from a body, one at a time. */
export type SseReader = {
  /** The next message, or `undefined` at the end of the body. */
  next(): Promise<SseMessage | undefined>
  cancel(): Promise<void>
}

/**
 * Bytes → SSE messages, with eventsource-parser, pulled one at a time.
 *
 * A pull reader rather than a `TransformStream`: when the body errors, WHATWG streams drop the
 * chunks still queued, so text the upstream did send before failing would never reach the client.
 * Here every event parsed before a failure is handed out first, then the failure is thrown.
 *
 * Chunk boundaries may fall anywhere, even inside a multi-byte character or between CR and LF:
 * the streaming `TextDecoder` and the parser carry partial input over. At the end of the body a
 * final event without its blank line is still delivered, since some OpenAI-compatible servers
 * end that way.
 */
export function createSseReader(
  body: ReadableStream<Uint8Array>,
  options: SseReaderOptions,
): SseReader {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const queue: SseMessage[] = []
  let head = 0
  let ended = false
  let failure: unknown
  let stray: string[] = []
  let strayLength = 0
  const parser = createParser({
    maxBufferSize: options.maxBufferSize,
    onEvent: (event) =>
      queue.push({ type: 'event', event: event.event, id: event.id, data: event.data }),
    onComment: (comment) => queue.push({ type: 'comment', comment }),
    onError: (error) => {
      // Google writes a mid-stream error as bare JSON, not as a `data:` line (checklist ERR-S-G);
      // the parser sees its lines as unknown fields. Collect them, to hand out once they parse.
      if (error.type === 'unknown-field' && error.line !== undefined) {
        stray.push(error.line)
        strayLength += error.line.length
        return
      }
      if (error.type === 'max-buffer-size-exceeded') {
        failure ??= new GatewayError(
          'upstream_error',
          'The upstream sent an event larger than the limit.',
          {
            cause: error,
          },
        )
      }
    },
  })
  /** Hands out collected stray lines that form a JSON object, as one event. */
  const flushStray = () => {
    if (stray.length === 0) return
    const text = stray.join('\n')
    if (strayLength > options.maxBufferSize) {
      stray = []
      strayLength = 0
      return
    }
    const parsed = parseJson(text)
    if (parsed.ok && isJsonObject(parsed.value)) {
      queue.push({ type: 'event', data: text })
      stray = []
      strayLength = 0
    }
  }
  const signal = options.signal
  // An abort must end a read in progress even when the body's source ignores the signal.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => undefined)
  signal?.addEventListener('abort', onAbort, { once: true })

  return {
    async next() {
      for (;;) {
        if (head < queue.length) {
          const message = queue[head]!
          head += 1
          if (head === queue.length) {
            queue.length = 0
            head = 0
          }
          return message
        }
        if (failure !== undefined) throw failure
        if (ended) return undefined
        if (signal?.aborted === true) throw signal.reason
        try {
          const { done, value } = await reader.read()
          // Re-read the signal: it may have aborted while the read was pending.
          if (isAborted(signal)) {
            failure = signal?.reason
          } else if (done) {
            ended = true
            signal?.removeEventListener('abort', onAbort)
            parser.feed(`${decoder.decode()}\n\n`)
            flushStray()
          } else {
            parser.feed(decoder.decode(value, { stream: true }))
            flushStray()
          }
        } catch (error) {
          failure ??= error
        }
      }
    },
    async cancel() {
      signal?.removeEventListener('abort', onAbort)
      await reader.cancel().catch(() => undefined)
    },
  }
}

/** A function, so the compiler does not narrow `signal.aborted` across the `await` before it. */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true
}
