import type { MaybePromise } from '../internal/maybe-promise'
import type { Group } from '../routing/group-registry'
import type { UpstreamProvider } from '../upstream/provider'
import type { AttemptChoice, AttemptVerdictKind } from '../usage/upstream-attempt'

/**
 * The seam between the attempt loop (which upstream failed how, and whether to try another) and
 * upstream selection and health (which upstream to try, and which are fit to be tried).
 *
 * @module
 */

/** What became of one attempt, as far as the upstream's (and its key's) health is concerned. */
export type AttemptVerdict =
  /** The upstream answered 2xx (a stream: its first frame was read and checked). `elapsedMs`:
   *  from the attempt's start to then (a stream's time to first token, a JSON answer's whole
   *  time), with the answer's reported `outputTokens`; the selector's latency measure. */
  | {
      kind: 'ok'
      elapsedMs?: number | undefined
      stream?: boolean | undefined
      outputTokens?: number | undefined
    }
  /** Connect error, reset, timeout (no status), or 408/409/429/5xx/529; `retryAfterMs` when the
   *  upstream said (retry-after, retry-after-ms, Gemini RetryInfo). */
  | { kind: 'failed'; status?: number; retryAfterMs?: number; answered?: boolean }
  /** The attempt's credential was refused (401/403) or is out of quota (e.g. OpenAI
   *  `insufficient_quota`, a billing error): that key leaves rotation. `reason` is short text. */
  | { kind: 'rejected-key'; status: number; reason: string }
  /** No health effect: the client's own 4xx, a client that left, a local decision. */
  | { kind: 'neutral' }

/** Compile-time check: the kinds usage records carry (`AttemptVerdictKind`) are exactly these. */
type VerdictKindsAgree = [AttemptVerdict['kind']] extends [AttemptVerdictKind]
  ? [AttemptVerdictKind] extends [AttemptVerdict['kind']]
    ? true
    : never
  : never
const verdictKindsAgree: VerdictKindsAgree = true
void verdictKindsAgree

/** What the attempt loop tells the selector about the request it selects for. */
export type SelectContext = {
  /**
   * The upstream model asked for: an upstream that answers failures rests for this model alone
   * (undefined: only the whole upstream's circuit counts).
   */
  model?: string | undefined
  /**
   * Set when every candidate is resting and the request goes anyway (`whenAllResting:
   * "try-soonest"`): the selector picks the untried upstream whose rest ends first, and marks the
   * selection `resting`.
   */
  resting?: boolean | undefined
  /** Upstream ids already tried for this request in this group (the selector picks another one
   *  when it can; it may return a tried one only for a same-upstream retry the attempt
   *  loop asks for via `retrySame`). */
  tried: ReadonlySet<string>
  /** Set when the attempt loop retries the same upstream once (408/409). */
  retrySame?: string | undefined
  /** The request's session hint (the attempt loop computes it with `sessionHintOf`), or
   * undefined. */
  sessionHint: string | undefined
  /** True for a streamed call (`balancing: "latency"` ranks streams and JSON answers apart). */
  stream?: boolean | undefined
  /**
   * The call's estimated cost at the catalogue's price of its upstream model, in nano-USD, before
   * any upstream's surcharge or multiplier (`balancing: "cost"`); undefined when it is unpriced.
   */
  estimateNano?: number | undefined
}

/** The upstream chosen for one attempt. */
export type Selection = {
  upstream: UpstreamProvider
  /** The pooled key this attempt uses, for a pooled upstream: its index (passed to the provider
   *  as `UpstreamCall.credential`) and masked form (`sk-…abcd`) for events and logs. */
  credential?: { index: number; masked: string } | undefined
  /** True when the attempt goes to an upstream that is resting for this model (nothing else could serve). */
  resting?: boolean | undefined
  /** Why this upstream: its tier, the strategy that chose it and its score. */
  choice?: AttemptChoice | undefined
  /** Reports the attempt's verdict and frees its in-flight/concurrency slot. Called exactly once
   *  per selection (the attempt loop guarantees it, on every path, including client aborts →
   *  `neutral`). For a stream that goes on after its verdict (`ok` at the first frame), `until`
   *  settles when the stream ends: the verdict counts at once (a probe closes its circuit at the
   *  first frame), the slot is held until then (`maxConcurrent` and least-in-flight count whole
   *  streams). */
  finish(verdict: AttemptVerdict, until?: Promise<unknown>): void
}

/** No upstream of the group may be tried now. */
export type Unavailable = {
  unavailable: true
  /** When the soonest circuit may let a probe through (ms from now), if known. */
  retryAfterMs: number | undefined
  reason: 'circuits-open' | 'concurrency' | 'no-keys' | 'exhausted'
  /** What rests, for the message: `upstream "a" of group "g" for model "m" (rate limited…)`. */
  detail?: string | undefined
}

/** Chooses the upstream of each attempt and keeps their health. One per gateway. */
export interface UpstreamSelector {
  select(group: Group, context: SelectContext): MaybePromise<Selection | Unavailable>
  /** Each upstream's state, for `gateway.health()`. */
  health(): MaybePromise<readonly UpstreamHealth[]>
}

/** One upstream's state, as `UpstreamSelector.health` reports it. */
export type UpstreamHealth = {
  groupId: string
  upstreamId: string
  circuit: 'closed' | 'open' | 'half-open'
  /** Epoch ms when an open circuit lets a probe through. */
  openUntil?: number | undefined
  /** Why the circuit last opened (`5 failures in a row`, `rate limited or overloaded (retry-after)`…). */
  reason?: string | undefined
  inFlight: number
  /** Its priority tier (`upstreams[].priority`, default 0). */
  tier?: number | undefined
  /**
   * Its share of the calls this instance sent its group in the last one to two minutes (0–1),
   * and their number; per instance, as every measure here.
   */
  share?: number | undefined
  recentCalls?: number | undefined
  /**
   * Its latency as this instance measured it, per upstream model: a decaying average of the time
   * to first token of streams (ms) and of the time per output token of JSON answers (ms), with
   * their sample counts; absent until a call succeeded.
   */
  latency?:
    | readonly {
        model: string
        streamMs?: number | undefined
        streamSamples: number
        jsonMsPerToken?: number | undefined
        jsonSamples: number
      }[]
    | undefined
  /** The upstream's `maxConcurrent`, when it has one. */
  maxConcurrent?: number | undefined
  /** The upstream models whose own circuit is not closed: each rests alone (a 429 for one model says nothing of another). */
  models?:
    | readonly {
        model: string
        circuit: 'open' | 'half-open'
        openUntil: number
        reason?: string | undefined
      }[]
    | undefined
  /** Per pooled key: masked form, and why it is out of rotation if it is. */
  keys?: readonly { masked: string; disabled?: string | undefined }[] | undefined
}

/** True when `select` found no upstream to try. */
export function isUnavailable(choice: Selection | Unavailable): choice is Unavailable {
  return 'unavailable' in choice
}
