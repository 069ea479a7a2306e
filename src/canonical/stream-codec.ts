import type { SseMessage } from '../sse/sse-message'
import type { StreamEvent } from './types'

/**
 * Upstream SSE messages → canonical stream events, for one stream. Synchronous and stateful: the
 * relay pushes each message as it arrives and calls `end` when the body ends.
 */
export type StreamDecoder = {
  push(message: SseMessage): StreamEvent[]
  /** Events owed at the end of the body (blocks left open, a finish the upstream never sent). */
  end(): StreamEvent[]
}

/**
 * Canonical stream events → the client protocol's SSE, for one stream. Each returned string is one
 * complete SSE frame (ending in a blank line), ready to write.
 */
export type StreamEncoder = {
  push(event: StreamEvent): string[]
  end(): string[]
  /**
   * A heartbeat frame for the client, written when the upstream sent one (a comment, Anthropic's
   * `ping`) and nothing else; protocols without a heartbeat event leave it out.
   */
  keepalive?(): string[]
}
