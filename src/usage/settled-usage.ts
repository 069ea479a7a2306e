import type { TokenEstimate, TokenUsage, UsageOutcome } from './usage-meter'

/** How far a call got: not sent upstream, sent, or its answer had begun to reach the client. */
export type CallProgress = 'not-sent' | 'sent' | 'answered'

/** What a request is settled with, and whether it is the gateway's estimate. */
export type SettledUsage = { usage: TokenUsage | undefined; estimated: boolean }

/**
 * The usage a request is settled with. What the upstream reported always wins, exactly as it
 * was. When it reported nothing, the request is never free when the upstream may have worked:
 * - it ended well (a JSON answer or a whole stream with no usage in it): the reservation's
 *   estimate, input plus the output allowance, since the answer was delivered and nothing says
 *   how long it was;
 * - the client left after the call was sent: the input estimate, since the upstream had the prompt;
 * - it failed after the answer had begun to reach the client: the input estimate;
 * - it failed before that (refused, unreachable, timed out, unusable answer), or the client left
 *   before the call was sent: nothing, as the vendors do not bill a call they failed or never got.
 */
export function settledUsage(
  reported: TokenUsage | undefined,
  outcome: UsageOutcome,
  estimate: TokenEstimate,
  progress: CallProgress,
): SettledUsage {
  if (reported !== undefined) return { usage: reported, estimated: false }
  if (outcome === 'ok') return estimated(estimate.inputTokens, estimate.outputTokens)
  if (outcome === 'aborted' && progress !== 'not-sent') return estimated(estimate.inputTokens, 0)
  if (outcome === 'error' && progress === 'answered') return estimated(estimate.inputTokens, 0)
  return { usage: undefined, estimated: false }
}

function estimated(inputTokens: number, outputTokens: number): SettledUsage {
  return {
    usage: {
      inputTokens,
      outputTokens,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      cacheWrite1hInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: inputTokens + outputTokens,
    },
    estimated: true,
  }
}
