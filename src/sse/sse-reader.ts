import { createParser } from 'eventsource-parser'
import { GatewayError } from '../errors'
import { isJsonObject, parseJson } from '../internal/json'
import { createChunkDecoder } from '../internal/utf8-chunks'
import type { CallSignal } from '../internal/call-signal'
import type { ChunkSource } from './chunk-source'
import type { SseMessage } from './sse-message'
import { plainEvents } from './plain-events'

/** Options of the SSE reader. */
export type SseReaderOptions = {
  /** The largest event, in characters, before the stream fails (guards memory). */
  maxBufferSize: number
  /**
   * How many characters of lines that are not SSE may arrive without a valid event or comment
   * before the stream fails as not being an event stream (default 8 KiB).
   */
  maxStrayChars?: number
  /** Aborting it cancels the body and makes the next read throw the signal's reason. */
  signal?: CallSignal
  /**
   * Reads text made only of plain events without the parser, keeping each event's wire text
   * (`raw`); the messages are the same (default true; false is the parser alone, for comparison).
   */
  plainEvents?: boolean
}

/** Pulls SSE messages from a body, one at a time. */
export type SseReader = {
  /** The next message, or `undefined` at the end of the body. */
  next(): Promise<SseMessage | undefined>
  /**
   * True when the next message is already parsed: `next()` then needs no read, so a relay can
   * hand out every event of one upstream read together.
   */
  buffered(): boolean
  /**
   * The next message when it is already parsed, else `undefined` (then `next()` reads on): the
   * events of one upstream read are taken without a promise each.
   */
  take(): SseMessage | undefined
  cancel(): Promise<void>
}

/** Enough for Google's mid-stream error object, pretty-printed with its details. */
const defaultMaxStrayChars = 8 * 1024
/** The most text handed to the parser at once. */
const feedSlice = 4 * 1024

/**
 * Bytes → SSE messages, with eventsource-parser, pulled one at a time.
 *
 * A pull reader rather than a `TransformStream`: when the body errors, WHATWG streams drop the
 * chunks still queued, so text the upstream did send before failing would never reach the client.
 * Here every event parsed before a failure is handed out first, then the failure is thrown.
 *
 * Chunk boundaries may fall anywhere, even inside a multi-byte character or between CR and LF:
 * the chunk decoder (`createChunkDecoder`) and the parser carry partial input over. At the end of the body a
 * final event without its blank line is still delivered, since some OpenAI-compatible servers
 * end that way.
 *
 * Lines that are not SSE are collected, because Google writes a mid-stream error as bare JSON;
 * they are handed out as one event once they form a JSON object. A body that
 * is not an event stream at all (an HTML page, binary garbage) fails after `maxStrayChars` of such
 * lines with no valid event among them: each one costs the parser an exception, so reading on
 * would stall the event loop for every other request. Only a collection that starts with `{` and
 * ends with `}` is ever joined and parsed, so the cost stays linear.
 */
export function createSseReader(
  body: ReadableStream<Uint8Array> | ChunkSource,
  options: SseReaderOptions,
): SseReader {
  const reader: ChunkSource = body instanceof ReadableStream ? body.getReader() : body
  const decoder = createChunkDecoder()
  const maxStrayChars = options.maxStrayChars ?? defaultMaxStrayChars
  const queue: SseMessage[] = []
  let head = 0
  let ended = false
  let failure: unknown
  // True while everything decoded so far ended at a blank line (the parser holds nothing), so the
  // next text can be read as plain events without it.
  let atBoundary = true
  const readPlain = options.plainEvents !== false
  // The parser strips a mis-decoded byte order mark from its first input only.
  let parserFed = false
  // Lines that are not SSE, since the last valid event: kept while they may be a JSON object.
  let stray: string[] = []
  let strayChars = 0
  let strayOpen = false
  /** Hands out the collected stray lines as one event when they form a JSON object. */
  const flushStray = () => {
    if (stray.length === 0 || !strayOpen) return
    if (!stray[stray.length - 1]!.trimEnd().endsWith('}')) return
    const text = stray.join('\n')
    const parsed = parseJson(text)
    if (parsed.ok && isJsonObject(parsed.value)) {
      queue.push({ type: 'event', data: text })
      stray = []
      strayOpen = false
    }
  }
  /** A valid event or comment: what came before it that was not SSE is settled, then forgotten. */
  const sawMessage = () => {
    flushStray()
    stray = []
    strayOpen = false
    strayChars = 0
  }
  const parser = createParser({
    maxBufferSize: options.maxBufferSize,
    onEvent: (event) => {
      sawMessage()
      queue.push({ type: 'event', event: event.event, id: event.id, data: event.data })
    },
    onComment: (comment) => {
      sawMessage()
      queue.push({ type: 'comment', comment })
    },
    onError: (error) => {
      if (error.type === 'unknown-field' && error.line !== undefined) {
        const line = error.line
        strayChars += line.length + 1
        if (strayChars > maxStrayChars) {
          failure ??= new GatewayError(
            'upstream_error',
            'The upstream sent a stream that is not server-sent events.',
          )
          stray = []
          return
        }
        if (stray.length === 0) strayOpen = line.trimStart().startsWith('{')
        // A collection that does not open an object can never become one: count it, keep nothing.
        if (strayOpen) stray.push(line)
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
  const signal = options.signal
  // An abort must end a read in progress even when the body's source ignores the signal.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => undefined)
  signal?.addEventListener('abort', onAbort, { once: true })

  const take = (): SseMessage | undefined => {
    if (head === queue.length) return undefined
    const message = queue[head]!
    head += 1
    if (head === queue.length) {
      queue.length = 0
      head = 0
    }
    return message
  }

  return {
    async next() {
      for (;;) {
        const message = take()
        if (message !== undefined) return message
        if (failure !== undefined) throw failure
        if (ended) return undefined
        if (signal?.aborted === true) throw signal.reason
        try {
          const { done, value } = await reader.read()
          // Re-read the signal: it may have aborted while the read was pending.
          if (isAborted(signal)) {
            failure = signal?.reason
          } else if (failure !== undefined) {
            // Failed while parsing the last chunk: read no further.
          } else if (done) {
            ended = true
            signal?.removeEventListener('abort', onAbort)
            parser.feed(`${decoder.end()}\n\n`)
            flushStray()
          } else {
            const text = decoder.decode(value as Uint8Array)
            const plain =
              readPlain && atBoundary ? plainEvents(text, options.maxBufferSize) : undefined
            if (plain !== undefined) {
              // Plain text starts with `data: ` or `event: `: the parser would strip nothing from
              // it, so it is told its first input has passed.
              if (!parserFed) parser.feed('')
              parserFed = true
              for (const message of plain) {
                sawMessage()
                queue.push(message)
              }
              continue
            }
            if (text !== '') {
              parserFed = true
              atBoundary = text.endsWith('\n\n')
            }
            // In slices, so that a chunk of garbage stops being parsed soon after it fails.
            for (let at = 0; at < text.length && failure === undefined; at += feedSlice) {
              parser.feed(
                at === 0 && text.length <= feedSlice ? text : text.slice(at, at + feedSlice),
              )
            }
            flushStray()
          }
        } catch (error) {
          failure ??= error
        }
      }
    },
    buffered: () => head < queue.length,
    take,
    async cancel() {
      signal?.removeEventListener('abort', onAbort)
      await reader.cancel().catch(() => undefined)
    },
  }
}

/** A function, so the compiler does not narrow `signal.aborted` across the `await` before it. */
function isAborted(signal: CallSignal | undefined): boolean {
  return signal?.aborted === true
}
