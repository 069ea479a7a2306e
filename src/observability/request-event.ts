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
  /** The key's team id (`teams[].id`): a bounded label, never a key. */
  team?: string | undefined
  /** The end user the request named (`x-gateway-user`, `user`, `metadata.user_id`), validated. */
  endUser?: string | undefined
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
  /**
   * The call interceptor that answered the request (a cache hit): no upstream was called, and
   * nothing was admitted or metered. Absent when no interceptor answered.
   */
  interceptedBy?: string | undefined
  /**
   * What the response cache did, for a group with `cache`: `hit` (answered from it, no upstream
   * called), `miss` (went upstream; its answer may be kept) or `bypass` (`cache-control:
   * no-store`, or a request the cache never serves). Absent for a group without a cache.
   */
  cache?: 'hit' | 'miss' | 'bypass' | undefined
  /**
   * Which limit refused the request (429 or 503 before any upstream call), and at which level:
   * `key` (the default), `team`, `organisation` or `end-user`.
   */
  refusal?: { limit: string; reason: string; level?: string | undefined } | undefined
  /** True when the request stopped retrying because its group's retry budget was spent. */
  retryBudgetExhausted?: boolean | undefined
  /**
   * The ids of the request's OpenTelemetry span (`telemetry`), so that logs join traces: 32 and
   * 16 lower-case hex digits. Absent without telemetry.
   */
  traceId?: string | undefined
  spanId?: string | undefined
}

/** A request's event while the gateway fills it in: every field but the three of its end. */
export type RequestEventDraft = Omit<RequestEvent, 'status' | 'outcome' | 'durationMs'>

/** Every field of `T` present, each possibly `undefined`: an object literal must name them all. */
type AllFields<T> = { [K in keyof Required<T>]: T[K] | undefined }

/**
 * A request's event as it starts, with every field it may get present from the start (most
 * `undefined`). V8 gives objects built the same way one hidden class: an event that gained its
 * fields one by one in the order each request happened to set them took one of dozens, and every
 * read of it (the log line, the metrics) and the copy at its end went through V8's slow,
 * megamorphic paths — about 50,000 instructions per request (`npm run bench:instructions`).
 */
export function startRequestEvent(
  requestId: string,
  method: string,
  path: string,
  route: string,
  startedAt: number,
): RequestEventDraft {
  const draft: AllFields<RequestEventDraft> = {
    requestId,
    method,
    path,
    route,
    key: undefined,
    keyId: undefined,
    team: undefined,
    endUser: undefined,
    group: undefined,
    model: undefined,
    upstreamModel: undefined,
    provider: undefined,
    stream: undefined,
    startedAt,
    usage: undefined,
    estimated: undefined,
    cost: undefined,
    error: undefined,
    adjustments: undefined,
    attempts: undefined,
    timeToFirstChunkMs: undefined,
    interceptedBy: undefined,
    cache: undefined,
    refusal: undefined,
    retryBudgetExhausted: undefined,
    traceId: undefined,
    spanId: undefined,
  }
  return draft as RequestEventDraft
}

/**
 * The event a listener gets: a copy of the draft with its end, built field by field (a spread of
 * the draft would take V8's generic copy), so that later changes to the draft do not reach it.
 */
export function completeRequestEvent(
  draft: RequestEventDraft,
  status: number,
  outcome: UsageOutcome,
  durationMs: number,
): RequestEvent {
  const event: AllFields<RequestEvent> = {
    requestId: draft.requestId,
    method: draft.method,
    path: draft.path,
    route: draft.route,
    key: draft.key,
    keyId: draft.keyId,
    team: draft.team,
    endUser: draft.endUser,
    group: draft.group,
    model: draft.model,
    upstreamModel: draft.upstreamModel,
    provider: draft.provider,
    stream: draft.stream,
    status,
    outcome,
    startedAt: draft.startedAt,
    durationMs,
    usage: draft.usage,
    estimated: draft.estimated,
    cost: draft.cost,
    error: draft.error,
    adjustments: draft.adjustments,
    attempts: draft.attempts,
    timeToFirstChunkMs: draft.timeToFirstChunkMs,
    interceptedBy: draft.interceptedBy,
    cache: draft.cache,
    refusal: draft.refusal,
    retryBudgetExhausted: draft.retryBudgetExhausted,
    traceId: draft.traceId,
    spanId: draft.spanId,
  }
  return event as RequestEvent
}
