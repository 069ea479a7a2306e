import type { ChunkSource } from '../sse/chunk-source'
import type { UpstreamProvider } from './provider'
import { discard, isEventStream, notAnEventStream } from './read-upstream-answer'
import type { UpstreamAnswer } from './upstream-answer'

/**
 * The SSE bytes of a 2xx answer to a stream call: the body itself when it is an event stream,
 * or what the provider's stream reader makes of it for an upstream whose stream is something else
 * (a binary event stream, JSON lines). An answer neither can read is the upstream's failure (502),
 * its body discarded.
 */
export function eventStreamOf(
  provider: UpstreamProvider,
  answer: UpstreamAnswer,
): ChunkSource | null {
  if (provider.readStream === undefined) {
    if (!isEventStream(answer)) throw notAnEventStream(answer)
    return answer.body
  }
  try {
    return provider.readStream(answer)
  } catch (error) {
    discard(answer.body)
    throw error
  }
}
