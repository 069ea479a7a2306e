import type { GatewayError } from '../errors'
import type { SseMessage } from '../sse/sse-message'
import type { TokenUsage, UsageOutcome } from './token-usage'

/** What a translator makes of one upstream message. */
export type TranslatedFrames = {
  /** Complete SSE frames for the client, in order. */
  frames: string[]
  /** Set on the client stream's last frame(s): how the request ended. */
  final?: UsageOutcome
  /**
   * Why the stream failed, when `final` is `error`: the upstream's own error event, or a stream cut
   * short. Before anything reached the client it is answered as a JSON error with its status
   * instead; after, it goes to the request's event.
   */
  error?: GatewayError
}

/**
 * Turns an upstream SSE stream into the client's, one message at a time: passthrough (frames as
 * the upstream wrote them, usage tapped) or translation (decode to canonical events, encode for
 * the client). The relay owns timing, backpressure and metering; the translator owns the wire.
 */
export type SseTranslator = {
  push(message: SseMessage): TranslatedFrames
  /**
   * Frames owed when the upstream body ends without a final frame. A body that ends without the
   * protocol's terminator (`[DONE]`, `message_stop`, a finish reason) ends in `error`.
   */
  end(): TranslatedFrames
  /** The client protocol's in-stream error frame, for a failure of the upstream connection. */
  failure(error: GatewayError): string
  /** The usage seen so far, exactly as the upstream reported it. */
  usage(): TokenUsage | undefined
  /**
   * Work to finish before the client receives the last frames, such as writing the answer to the
   * response store, so that a client's next request can already refer to it. Never rejects.
   */
  settle?(): Promise<void>
  /**
   * End the client's connection abnormally after the error frame, instead of a clean end of body.
   * Google's servers do so, and Gemini clients that skip the error object (the AI SDK, LangChain)
   * only report the failure when the body itself fails.
   */
  readonly abortAfterFailure?: boolean
}
