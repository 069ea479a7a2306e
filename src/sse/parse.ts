import { createParser } from 'eventsource-parser'
import { GatewayError } from '../errors'
import type { SseMessage } from './sse-message'

/** Options of the SSE decoder. */
export type SseDecoderOptions = {
  /** The largest event, in characters, before the stream fails (guards memory). */
  maxBufferSize: number
}

/**
 * Bytes → SSE messages, with eventsource-parser. Chunk boundaries may fall anywhere, even inside a
 * multi-byte character or between CR and LF: the streaming `TextDecoder` and the parser both carry
 * partial input over. At the end of the body a final event without its blank line is still
 * delivered, since some OpenAI-compatible servers end that way.
 */
export function createSseDecoder(
  options: SseDecoderOptions,
): TransformStream<Uint8Array, SseMessage> {
  const decoder = new TextDecoder()
  let sink: TransformStreamDefaultController<SseMessage> | undefined
  let failure: GatewayError | undefined
  const parser = createParser({
    maxBufferSize: options.maxBufferSize,
    onEvent: (event) =>
      sink?.enqueue({ type: 'event', event: event.event, id: event.id, data: event.data }),
    onComment: (comment) => sink?.enqueue({ type: 'comment', comment }),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') {
        failure = new GatewayError(
          'upstream_error',
          'The upstream sent an event larger than the limit.',
          {
            cause: error,
          },
        )
      }
    },
  })
  const feed = (text: string, controller: TransformStreamDefaultController<SseMessage>) => {
    sink = controller
    parser.feed(text)
    sink = undefined
    if (failure !== undefined) throw failure
  }
  return new TransformStream<Uint8Array, SseMessage>({
    transform(chunk, controller) {
      feed(decoder.decode(chunk, { stream: true }), controller)
    },
    flush(controller) {
      feed(`${decoder.decode()}\n\n`, controller)
    },
  })
}
