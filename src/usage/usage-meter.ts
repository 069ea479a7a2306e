import type { MaybePromise } from '../internal/maybe-promise'

/**
 * Token counts exactly as the upstream reported them. `inputTokens` includes cached input, as
 * OpenAI's `prompt_tokens` does; `totalTokens` is what counts against a quota.
 */
export type TokenUsage = {
  inputTokens: number
  outputTokens: number
  cachedInputTokens: number
  totalTokens: number
}

/** How a request ended. */
export type UsageOutcome = 'ok' | 'error' | 'aborted'

/** One metered request. */
export type UsageRecord = {
  requestId: string
  keyId: string
  groupId: string
  providerId: string
  /** The call name the client sent. */
  model: string
  /** The model name the upstream received. */
  upstreamModel: string
  /** The client-facing route, such as `chat.completions`. */
  route: string
  stream: boolean
  /** `undefined` when the upstream reported no usage (never silently zero). */
  usage: TokenUsage | undefined
  outcome: UsageOutcome
  /** The HTTP status the client received. */
  status: number
  /** Epoch milliseconds. */
  startedAt: number
  durationMs: number
}

/** What `reserve` is asked for. */
export type ReserveRequest = {
  requestId: string
  keyId: string
  /** The key's total token allowance; `undefined` means unlimited. */
  quotaTokens: number | undefined
  /** A conservative guess of the tokens this request will use, held until it settles. */
  estimatedTokens: number
}

/** A held reservation, handed back to `settle` or `release`. */
export type Reservation = { id: string; keyId: string; tokens: number }

/** The answer to `reserve`. */
export type ReserveResult =
  | { granted: true; reservation: Reservation }
  | { granted: false; reason: 'quota_exceeded' | 'rate_limited'; retryAfterSeconds?: number }

/** A key's running totals. */
export type KeyUsageSummary = {
  requests: number
  inputTokens: number
  outputTokens: number
  cachedInputTokens: number
  totalTokens: number
  /** Tokens held by requests still in flight. */
  reservedTokens: number
}

/**
 * Meters usage per key and enforces quota. The flow is reserve → settle (or release):
 * - `reserve` admits a request before any upstream call, holding an estimate so that concurrent
 *   requests cannot all pass on the same remaining quota;
 * - `settle` records what the request really used and drops the hold;
 * - `release` drops the hold of a request that never reached an upstream.
 *
 * Stores shared between instances (Redis, SQL) make each step atomic; `createMemoryUsageMeter` is
 * the built-in single-process one.
 */
export interface UsageMeter {
  reserve(request: ReserveRequest): MaybePromise<ReserveResult>
  settle(reservation: Reservation, record: UsageRecord): MaybePromise<void>
  release(reservation: Reservation): MaybePromise<void>
  /** The key's totals, for `GET /v1/usage`. */
  summary(keyId: string): MaybePromise<KeyUsageSummary>
}
