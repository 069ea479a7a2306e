import { maskKey } from '../auth/mask-key'
import { readCredential } from '../auth/credentials'
import type { AuthedScope, GatewayRuntime } from '../gateway-runtime'
import type { DailyUsage } from '../usage/usage-ledger'
import { jsonAnswer, type GatewayAnswer } from '../http/gateway-answer'
import { nanoToUsd } from '../pricing/price-units'
import { moneyBudgetsOf } from '../usage/key-limits'
import { budgetsOf, isMoneyState, spendOf } from './key-spend'
import type { RouteDefinition } from './route-definition'
import { subjectUsage } from './subject-usage'

/**
 * `GET /v1/usage`: the calling key's own usage, spend and limits, and nothing
 * about other keys. The limits come from the meter, so with a shared meter they are the fleet's,
 * not this instance's. `spend` is what the key's requests cost in USD (in all, today, this month)
 * and `budget` its money budgets; `daily` rows carry their cost. Besides our own structure it
 * `team` is the key's team's limits and budgets, what they used and what is left (never the team's
 * other keys), `null` without a team; `end_user` is there when the key has `perUser` limits and the
 * request names its end user (`x-gateway-user`). It
 * carries the flat fields CC Switch-style clients read: `isValid`, `planName`, `remaining` (the
 * least left of the key's token budgets, -1 when it has none) and `unit`.
 */
export async function handleKeyUsage(
  runtime: GatewayRuntime,
  scope: AuthedScope,
): Promise<GatewayAnswer> {
  const key = scope.key
  const team = scope.team
  // Only the end user the request names (`x-gateway-user`, or the host app's): the key's other
  // end users are never listed, nor their spend echoed.
  const endUser = key.perUser === undefined ? undefined : scope.endUser
  const moneyBudgets = moneyBudgetsOf(key.budget)
  const summary = await runtime.meter.summary(key.id, {
    limits: key.limits,
    quotaTokens: key.quota?.tokens,
    ...(moneyBudgets === undefined ? {} : { budgets: moneyBudgets }),
  })
  const now = runtime.now()
  const days = await readDays(runtime, key.id, now)
  const daily = days === undefined || days === null ? days : days.slice(-dailyDays).map(dayJson)
  const states = summary.limits ?? []
  const quota = states.find((state) => state.name === 'quota')
  const budgets = states.filter((state) => state.used !== undefined && !isMoneyState(state))
  const remaining = budgets.length === 0 ? -1 : Math.min(...budgets.map((state) => state.remaining))
  const limits: Record<string, unknown> = {}
  for (const state of states) {
    if (state.name === 'quota' || isMoneyState(state)) continue
    limits[state.name] = {
      limit: state.limit,
      ...(state.used === undefined ? {} : { used: state.used, reserved: state.reserved ?? 0 }),
      remaining: state.remaining,
      reset_at:
        state.resetInMs === undefined ? null : new Date(now + state.resetInMs).toISOString(),
    }
  }
  return jsonAnswer({
    object: 'usage',
    key: {
      id: key.id,
      name: key.name ?? key.id,
      masked: maskKey(readCredential(scope.request.headers)),
      groups: key.groups ?? null,
      expires_at: key.expiresAt?.toISOString() ?? null,
    },
    usage: {
      requests: summary.requests,
      input_tokens: summary.inputTokens,
      output_tokens: summary.outputTokens,
      cached_input_tokens: summary.cachedInputTokens,
      total_tokens: summary.totalTokens,
      cache_hits: summary.cacheHits ?? null,
    },
    quota: {
      unit: 'tokens',
      limit: quota?.limit ?? null,
      used: quota?.used ?? summary.totalTokens,
      reserved: quota?.reserved ?? summary.reservedTokens,
      remaining: quota?.remaining ?? null,
    },
    limits,
    spend: spendOf(summary, states, days, now),
    budget: budgetsOf(moneyBudgets, states, now),
    ...(daily === undefined ? {} : { daily }),
    team:
      team === undefined
        ? null
        : {
            id: team.id,
            name: team.name ?? team.id,
            ...(await subjectUsage(runtime, { kind: 'team', id: team.id }, team, now)),
          },
    ...(endUser === undefined
      ? {}
      : {
          end_user: {
            id: endUser,
            ...(await subjectUsage(
              runtime,
              { kind: 'end-user', id: endUser, keyId: key.id },
              key.perUser ?? {},
              now,
            )),
          },
        }),
    isValid: true,
    planName: key.name ?? key.id,
    remaining,
    unit: 'tokens',
  })
}

/** How many UTC days `daily` covers, today included. */
const dailyDays = 30
/** The longest `GET /v1/usage` waits for the history; past it, `daily` is `null`. */
const dailyTimeoutMs = 1000

/**
 * The key's days from a ledger that keeps them (Postgres): the last 30, or back to the 1st of the
 * month when that is further (this month's spend is summed from them): `undefined` without such
 * a ledger, `null` when it does not answer in time (the rest of the answer does not depend on it).
 */
async function readDays(runtime: GatewayRuntime, keyId: string, now: number) {
  const read = runtime.ledger?.dailyUsage?.bind(runtime.ledger)
  if (read === undefined) return undefined
  const dayOfMonth = new Date(now).getUTCDate()
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), dailyTimeoutMs)
  })
  try {
    return await Promise.race([read(keyId, Math.max(dailyDays, dayOfMonth)), timeout])
  } catch {
    return null
  } finally {
    clearTimeout(timer)
  }
}

/** A day of `daily`: its requests and tokens, and what its priced requests cost. */
function dayJson(day: DailyUsage) {
  return {
    date: day.date,
    requests: day.requests,
    input_tokens: day.inputTokens,
    output_tokens: day.outputTokens,
    cached_input_tokens: day.cachedInputTokens,
    total_tokens: day.totalTokens,
    cost_usd: day.costNanoUsd === undefined ? null : nanoToUsd(day.costNanoUsd),
    unpriced_requests: day.unpricedRequests ?? null,
    cache_hits: day.cacheHits ?? null,
    saved_usd: day.savedCostNanoUsd === undefined ? null : nanoToUsd(day.savedCostNanoUsd),
  }
}

/** `GET /v1/usage`, in the shape the headers ask for. */
export const keyUsageRoutes: readonly RouteDefinition[] = [
  { name: 'usage', method: 'GET', paths: ['/v1/usage'], errors: 'header', handler: handleKeyUsage },
]
