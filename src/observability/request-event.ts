import type { Adjustment } from '../models/model-target'
import type { UpstreamAttempt } from '../usage/upstream-attempt'
import type { TokenUsage, UsageOutcome } from '../usage/usage-meter'
import type { UsageCost } from '../pricing/usage-cost'

/**
 * One record per completed request, for logs and metrics. It never holds a full key: only the
 * masked form `sk-…abcd`.
 */
export type RequestEvent = {
  requestId: string
  method: string
  path: string
  /** The gateway route, such as `chat.completions`, `models` or `usage`; `unknown` for a 404. */
  route: string
  /** The masked key, when the request carried one. */
  key?: string | undefined
  keyId?: string | undefined
  group?: string | undefined
  model?: string | undefined
  upstreamModel?: string | undefined
  provider?: string | undefined
  stream?: boolean | undefined
  /** The HTTP status the client received. */
  status: number
  outcome: UsageOutcome
  /** Epoch milliseconds. */
  startedAt: number
  durationMs: number
  usage?: TokenUsage | undefined
  /** True when `usage` is the gateway's estimate because the upstream reported none. */
  estimated?: boolean | undefined
  /**
   * What the request cost at the answering model's price, with that price (see `UsageCost`);
   * `null` when that model has no price. Absent for a request that was never metered.
   */
  cost?: UsageCost | null | undefined
  error?: { code: string; message: string } | undefined
  /**
   * What a translated request had changed so that the upstream model accepts it (an output limit
   * capped, a reasoning field mapped or dropped, thinking turned off for a tool turn…); absent
   * when nothing was changed.
   */
  adjustments?: readonly Adjustment[] | undefined
  /**
   * The upstream attempts of a generation call, in order (`UpstreamAttempt`): one when the first
   * answered; several when the gateway retried or fell back. `group` and `provider` above are the
   * last attempt's.
   */
  attempts?: readonly UpstreamAttempt[] | undefined
  /**
   * For a stream: from the request's start until its first event for the client, in
   * milliseconds (time to first token).
   */
  timeToFirstChunkMs?: number | undefined
  /** Which of the key's limits refused the request (429 or 503 before any upstream call). */
  refusal?: { limit: string; reason: string } | undefined
  /** True when the request stopped retrying because its group's retry budget was spent. */
  retryBudgetExhausted?: boolean | undefined
  /**
   * The ids of the request's OpenTelemetry span (`telemetry`), so that logs join traces: 32 and
   * 16 lower-case hex digits. Absent without telemetry.
   */
  traceId?: string | undefined
  spanId?: string | undefined
}
