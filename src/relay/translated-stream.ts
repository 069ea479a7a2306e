import type { StreamDecoder, StreamEncoder } from '../canonical/stream-codec'
import type { StreamEvent, Usage } from '../canonical/types'
import { emptyUsage, mergeUsage, toTokenUsage } from '../canonical/usage'
import type { GatewayError } from '../errors'
import type { SseMessage } from '../sse/sse-message'
import type { UsageOutcome } from '../usage/usage-meter'
import type { SseTranslator, TranslatedFrames } from '../canonical/sse-translator'

/**
 * A translator for cross-protocol streams: upstream SSE → canonical events (the upstream's
 * decoder) → the client's SSE (the client's encoder). Usage is read from the canonical `usage`
 * and `finish` events, so it is exactly what the upstream reported. A failure of the upstream
 * connection is written by the encoder, as an `error` event.
 */
export function translatedStream(
  decoder: StreamDecoder,
  encoder: StreamEncoder,
  options: { abortAfterFailure: boolean } = { abortAfterFailure: false },
): SseTranslator {
  let usage: Usage = emptyUsage()
  let finished: UsageOutcome | undefined

  const run = (events: StreamEvent[], atEnd: boolean): TranslatedFrames => {
    const frames: string[] = []
    let error: GatewayError | undefined
    for (const event of events) {
      if (finished !== undefined) break
      if (event.type === 'usage') usage = mergeUsage(usage, event.usage)
      if (event.type === 'message-start' && event.usage !== undefined)
        usage = mergeUsage(usage, event.usage)
      if (event.type === 'finish') usage = mergeUsage(usage, event.usage)
      frames.push(...encoder.push(event))
      if (event.type === 'finish') finished = 'ok'
      if (event.type === 'error') {
        finished = 'error'
        error = event.error
      }
    }
    if (finished !== undefined || atEnd) frames.push(...encoder.end())
    const result: TranslatedFrames = { frames }
    if (finished !== undefined) result.final = finished
    else if (atEnd) result.final = 'ok'
    // Before the client has received anything, the relay answers this error as JSON instead.
    if (error !== undefined) result.error = error
    return result
  }

  return {
    push(message: SseMessage) {
      if (finished !== undefined) return { frames: [] }
      const result = run(decoder.push(message), false)
      // An upstream heartbeat becomes the client's, where its protocol has one.
      if (result.frames.length === 0 && isHeartbeat(message) && encoder.keepalive !== undefined)
        result.frames.push(...encoder.keepalive())
      return result
    },
    end: () =>
      finished === undefined ? run(decoder.end(), true) : { frames: [], final: finished },
    // The encoder writes the client protocol's error frame(s), continuing its own stream state
    // (a Responses stream's sequence numbers and output items, say).
    failure: (error: GatewayError) => encoder.push({ type: 'error', error }).join(''),
    usage: () => toTokenUsage(usage),
    abortAfterFailure: options.abortAfterFailure,
  }
}

/** A comment line, or Anthropic's `ping` event: the upstream is alive but has nothing to say. */
function isHeartbeat(message: SseMessage): boolean {
  return message.type === 'comment' || message.event === 'ping' || message.event === 'keepalive'
}
