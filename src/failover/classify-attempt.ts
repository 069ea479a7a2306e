import { GatewayError } from '../errors'
import type { AttemptVerdict } from './upstream-selector'

/**
 * What the attempt loop does after a failed attempt, when nothing has reached the client yet:
 * - `other`: try another upstream (the group's, then a fallback's): no answer, an unusable one,
 *   429, 5xx, 529, a refused credential;
 * - `same`: try the same upstream once more (408, 409: a timing the client could not help);
 * - `stop`: answer the client with this failure: its own error (other 4xx), a client that left,
 *   the gateway's own failure.
 *
 * A failure after the first byte reached the client never gets here: the stream ends with the
 * protocol's error event.
 */
export type NextStep = 'other' | 'same' | 'stop'

/** The step after a failed attempt, from its failure and the verdict `attemptVerdict` gave it. */
export function nextStepAfter(failure: unknown, verdict: AttemptVerdict): NextStep {
  if (verdict.kind === 'neutral') return 'stop'
  if (verdict.kind === 'rejected-key') return 'other'
  const status = GatewayError.isInstance(failure) ? failure.upstream?.status : undefined
  return status === 408 || status === 409 ? 'same' : 'other'
}
