import type { KeyLimits, MoneyBudget } from '../auth/key-store'
import type { GatewayRuntime } from '../gateway-runtime'
import { settingsOf } from '../usage/metered-subjects'
import type { MeteredSubjectRef } from '../usage/usage-meter'
import { budgetsOf, isMoneyState } from './key-spend'

/** A subject's limits, as `GET /v1/usage` is given them. */
type SubjectSettings = {
  quotaTokens?: number | undefined
  limits?: KeyLimits | undefined
  budgets?: readonly MoneyBudget[] | undefined
}

/**
 * What `GET /v1/usage` says of a subject above or beside the calling key — its team, or the end
 * user the request names: each limit and budget with what it used, what requests in flight hold
 * and what is left. The subject's totals (requests, tokens) are left out: a team's would tell one
 * key holder what the team's other keys did, beyond the budget they share.
 */
export async function subjectUsage(
  runtime: GatewayRuntime,
  ref: MeteredSubjectRef,
  settings: SubjectSettings,
  now: number,
) {
  const summary = await runtime.meter.summary(ref, settingsOf(settings))
  const states = summary.limits ?? []
  const quota = states.find((state) => state.name === 'quota')
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
  return {
    quota:
      quota === undefined
        ? null
        : {
            unit: 'tokens',
            limit: quota.limit,
            used: quota.used ?? 0,
            reserved: quota.reserved ?? 0,
            remaining: quota.remaining,
          },
    limits,
    budget: budgetsOf(settings.budgets, states, now),
  }
}
