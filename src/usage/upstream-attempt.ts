/**
 * What an attempt told the upstream selector about the upstream's health: the `kind` of the
 * failover layer's `AttemptVerdict` (which checks at compile time that the two agree). Records
 * carry the kind alone, so the usage layer keeps it here rather than importing upward.
 */
export type AttemptVerdictKind = 'ok' | 'failed' | 'rejected-key' | 'neutral'

/**
 * How an attempt's upstream was chosen: `only` (the group has one upstream), `affinity` (the
 * session's rendezvous choice), a group's balancing (`weighted`, `least-in-flight`, `latency`,
 * `cost`; `weighted` too when latency or cost had nothing to go by), `retry-same` (the same
 * upstream again: a 408/409, another pooled key, a lone upstream), `resting` (every candidate
 * rested and this one's rest ends first).
 */
export type ChoiceStrategy =
  | 'only'
  | 'affinity'
  | 'weighted'
  | 'least-in-flight'
  | 'latency'
  | 'cost'
  | 'retry-same'
  | 'resting'

/** Why an attempt went to its upstream, as the selector decided. */
export type AttemptChoice = {
  /** The upstream's priority tier (`upstreams[].priority`). */
  readonly tier: number
  readonly strategy: ChoiceStrategy
  /**
   * The winning score, in the strategy's unit: `latency`, milliseconds (to first token, or per
   * output token) × (calls in flight + 1) ÷ weight; `cost`, the estimated nano-USD at catalogue
   * price × surcharge × `priceMultiplier`. Absent for the other strategies.
   */
  readonly score?: number | undefined
}

/**
 * How far an attempt got:
 * - `connect`: no answer (the connection failed or was reset, or no status came in time);
 * - `headers`: the upstream answered a status (a non-2xx attempt ends here);
 * - `first-byte`: a 2xx answer's body, before anything reached the client (a JSON answer, read and
 *   checked whole, then sent; a stream up to its first event);
 * - `stream`: a stream whose events had begun to reach the client.
 */
export type AttemptPhase = 'connect' | 'headers' | 'first-byte' | 'stream'

/**
 * One upstream attempt of a request, as `onEvent` records, usage records and the request log carry
 * them, in the order they were made. A request answered at the first try has one.
 */
export type UpstreamAttempt = {
  /** The group of the upstream: the model's own, or a fallback's. */
  group: string
  upstream: string
  /** The pooled key the attempt used, masked (`sk-…abcd`), for an upstream with a key pool. */
  credential?: string | undefined
  /** The upstream's HTTP status, or the status of the error event its stream began with. */
  status?: number | undefined
  phase: AttemptPhase
  /** `answered`: its answer went to the client; `failed`: another attempt or an error followed. */
  outcome: 'answered' | 'failed' | 'aborted'
  /** What the attempt told the upstream selector about the upstream's health. */
  verdict: AttemptVerdictKind
  /** The gateway's error code of a failed attempt (`upstream_error`, `rate_limited`…). */
  error?: string | undefined
  /**
   * True when the attempt went to an upstream resting for this model, because every candidate
   * was (`circuitBreaker.whenAllResting: "try-soonest"`, or a lone upstream's retry).
   */
  resting?: boolean | undefined
  /** From the attempt's start until it answered (a stream: its first event) or failed. */
  durationMs: number
  /** Its upstream's priority tier (absent from records made by a selector that does not say). */
  tier?: number | undefined
  /** How its upstream was chosen (`ChoiceStrategy`). */
  strategy?: ChoiceStrategy | undefined
  /** The strategy's score of its upstream (`AttemptChoice.score`). */
  score?: number | undefined
}
