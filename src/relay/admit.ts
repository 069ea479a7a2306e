import type { KeyRecord } from '../auth/key-store'
import { GatewayError } from '../errors'
import type { GatewayRuntime, RequestScope } from '../gateway-runtime'
import { formatUsd } from '../pricing/price-units'
import { moneyBudgetsOf, resetInstant, type LimitName } from '../usage/key-limits'
import { rateLimitHeaders } from '../usage/rate-limit-headers'
import type {
  LimitRefusal,
  LimitState,
  MeteredSubject,
  Reservation,
  TokenEstimate,
} from '../usage/usage-meter'
import type { GatewayAnswer } from '../http/gateway-answer'

/** An admitted request: its reservation, and its key's limits after it was counted. */
export type Admission = { reservation: Reservation; limits: readonly LimitState[] }

/**
 * Asks the meter to admit a request before any upstream call: every limit of the key, and of the
 * other subjects the request is charged to (`request.subjects`: a team, the organisation, an end
 * user), in one atomic step. A refusal never costs an upstream call:
 * - a spent token budget is 429 `insufficient_quota`, a spent money budget 429 `budget_exceeded`,
 *   with `x-should-retry: false` (the SDKs then do not retry) and, for a day or month budget,
 *   `retry-after` until the period ends;
 * - a window, the concurrency limit, or a budget whose remainder the key's requests in flight
 *   hold is 429 `rate_limited`, with `retry-after` and `retry-after-ms` (read first by the
 *   official SDKs);
 * - a shared store that cannot be asked, under a fail-closed policy, is 503.
 */
export async function admit(
  runtime: GatewayRuntime,
  scope: RequestScope,
  key: KeyRecord,
  request: {
    estimatedTokens: number
    estimate: TokenEstimate
    /** The subjects charged besides the key: its end user, its team, the organisation. */
    subjects?: readonly MeteredSubject[] | undefined
  },
): Promise<Admission> {
  const budgets = moneyBudgetsOf(key.budget)
  const result = await runtime.meter.reserve({
    requestId: scope.requestId,
    keyId: key.id,
    quotaTokens: key.quota?.tokens,
    limits: key.limits,
    ...(budgets === undefined ? {} : { budgets }),
    ...(request.subjects === undefined ? {} : { subjects: request.subjects }),
    estimatedTokens: request.estimatedTokens,
    estimate: request.estimate,
  })
  if (result.granted) return { reservation: result.reservation, limits: result.limits ?? [] }
  scope.event.refusal = {
    limit: result.refusal?.name ?? (result.reason === 'unavailable' ? 'store' : 'quota'),
    reason: result.reason,
    ...(result.refusal?.subject === undefined ? {} : { level: result.refusal.subject.kind }),
  }
  const headers: Record<string, string> = {}
  const waitMs =
    result.refusal?.retryAfterMs ??
    (result.retryAfterSeconds === undefined ? undefined : result.retryAfterSeconds * 1000)
  if (waitMs !== undefined) {
    headers['retry-after'] = String(Math.max(1, Math.ceil(waitMs / 1000)))
    headers['retry-after-ms'] = String(Math.max(0, Math.ceil(waitMs)))
  }
  switch (result.reason) {
    case 'rate_limited':
      throw new GatewayError('rate_limited', rateLimitMessage(result.refusal), { headers })
    case 'quota_exceeded':
      throw new GatewayError('quota_exceeded', budgetMessage(result.refusal, runtime.now()), {
        headers: { ...headers, 'x-should-retry': 'false' },
      })
    case 'budget_exceeded':
      throw new GatewayError('budget_exceeded', spendMessage(result.refusal, runtime.now()), {
        headers: { ...headers, 'x-should-retry': 'false' },
      })
    case 'unavailable':
      throw new GatewayError(
        'unavailable',
        "The usage store is unavailable, so this key's limits cannot be checked. Try again shortly.",
        { headers: { 'retry-after': headers['retry-after'] ?? '1' } },
      )
    default: {
      const unknown: never = result.reason
      throw new Error(`Unknown refusal ${String(unknown)}`)
    }
  }
}

/**
 * Adds the key's rate-limit headers to a successful answer: Anthropic's on messages routes, OpenAI's
 * elsewhere (Google sends none of its own, and OpenAI's are what generic clients read).
 */
export function withRateLimitHeaders(
  response: GatewayAnswer,
  scope: RequestScope,
  admission: Admission,
  now: number,
): GatewayAnswer {
  const style = scope.event.route === 'messages' ? 'anthropic' : 'openai'
  for (const [name, value] of rateLimitHeaders(admission.limits, style, now)) {
    response.headers.set(name, value)
  }
  return response
}

const windowWords: Partial<Record<LimitName, string>> = {
  requestsPerMinute: 'requests per minute (requestsPerMinute)',
  inputTokensPerMinute: 'input tokens per minute (inputTokensPerMinute)',
  outputTokensPerMinute: 'output tokens per minute (outputTokensPerMinute)',
}

/** Whose limit refused, as a message names it: this API key, or another subject. */
function ownerOf(refusal: LimitRefusal | undefined): string {
  const subject = refusal?.subject
  if (subject === undefined) return 'This API key'
  switch (subject.kind) {
    case 'key':
      return 'This API key'
    case 'team':
      return `Team ${JSON.stringify(subject.id)}`
    case 'organisation':
      return 'The organisation'
    case 'end-user':
      return `End user ${JSON.stringify(subject.id)} of this API key`
    default: {
      const unknown: never = subject.kind
      return String(unknown)
    }
  }
}

function rateLimitMessage(refusal: LimitRefusal | undefined): string {
  if (refusal === undefined) return 'This API key is over its rate limit.'
  const owner = ownerOf(refusal)
  const wait =
    refusal.retryAfterMs === undefined
      ? ''
      : ` Please try again in ${formatWait(refusal.retryAfterMs)}.`
  if (refusal.name === 'concurrency') {
    return `${owner} already has ${refusal.limit} requests in flight, its concurrency limit.${wait}`
  }
  if (refusal.inFlight === true) {
    const money = moneyWords[refusal.name]
    const budget =
      refusal.name === 'quota'
        ? `token quota (limit ${refusal.limit})`
        : money !== undefined
          ? `${money} budget (${formatUsd(refusal.limit)})`
          : `${refusal.name} budget (limit ${refusal.limit})`
    const whose =
      refusal.subject === undefined ? `this API key's ${budget}` : `the ${budget} of ${owner}`
    return `What is left of ${whose} is held by its requests in flight, and this request needs more than that.${wait}`
  }
  const what = windowWords[refusal.name] ?? refusal.name
  const of = refusal.subject === undefined ? '' : ` (${owner})`
  return `Rate limit reached for ${what}${of}: limit ${refusal.limit}.${wait}`
}

function budgetMessage(refusal: LimitRefusal | undefined, now: number): string {
  switch (refusal?.name) {
    case 'tokensPerDay':
    case 'tokensPerMonth': {
      const period = refusal.name === 'tokensPerDay' ? 'daily' : 'monthly'
      const resets =
        refusal.retryAfterMs === undefined
          ? ''
          : ` It resets at ${resetInstant(now, refusal.retryAfterMs)} (UTC).`
      return `${ownerOf(refusal)} has used its ${period} token budget (${refusal.name}: ${refusal.limit}).${resets} See GET /v1/usage.`
    }
    default:
      return `${ownerOf(refusal)} has used up its token quota. See GET /v1/usage.`
  }
}

/** The money budgets' periods in words, by limit name (a `LimitName`, never client text). */
const moneyWords: Partial<Record<LimitName, string>> = {
  usdPerDay: 'daily',
  usdPerMonth: 'monthly',
  usdLifetime: 'lifetime',
}

/** A spent money budget: which, how much, and when it resets. */
function spendMessage(refusal: LimitRefusal | undefined, now: number): string {
  const period = refusal === undefined ? undefined : moneyWords[refusal.name]
  if (refusal === undefined || period === undefined) {
    return 'This API key has spent its budget. See GET /v1/usage.'
  }
  const resets =
    refusal.retryAfterMs === undefined
      ? ' It does not reset.'
      : ` It resets at ${resetInstant(now, refusal.retryAfterMs)} (UTC).`
  const where = ` (${budgetField(refusal)})`
  return `${ownerOf(refusal)} has spent its ${period} budget of ${formatUsd(refusal.limit)}${where}.${resets} See GET /v1/usage.`
}

/** The config field a refused money budget is set by, so an operator knows where to look. */
function budgetField(refusal: LimitRefusal): string {
  const kind = refusal.subject?.kind
  switch (kind) {
    case undefined:
    case 'key':
      return 'keys[].budget'
    case 'team':
      return 'teams[].budget'
    case 'organisation':
      return 'organisation.budget'
    case 'end-user':
      return 'keys[].perUser.budget'
    default: {
      const unknown: never = kind
      return String(unknown)
    }
  }
}

function formatWait(ms: number): string {
  return ms < 1000 ? `${Math.ceil(ms)}ms` : `${Math.ceil(ms / 1000)}s`
}
