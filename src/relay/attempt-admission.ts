import type { AttemptVerdict, Selection } from '../failover/upstream-selector'
import {
  hasMoneyBudget,
  refusesUnpriced,
  routeCostEstimate,
  unpricedModelError,
} from './route-price'
import { admit } from './admit'
import { requestSubjects, subjectsSpendMoney } from './request-subjects'
import { startMeteredRequest } from './metered-request'
import type { LoopState } from './attempt-state'
import { fallbackRoutes } from './fallback-plan'
import type { CallPlan } from './call-plan'
import { rerouteCall, type RoutedCall } from './route-call'

const neutralVerdict: AttemptVerdict = { kind: 'neutral' }

/**
 * The plan of an attempt, with the request admitted and metered before its first attempt. A plan
 * the upstream's protocol refuses ends the request at the first attempt (the client's error); at a
 * later one the upstream is passed over (`undefined`), since the client's request was fine for
 * the first. A refusal of the meter ends the request. The selection hears `neutral` either way.
 */
export async function planAttempt(
  state: LoopState,
  routed: RoutedCall,
  selection: Selection,
): Promise<CallPlan | undefined> {
  let plan: CallPlan
  try {
    const planned = state.planFor({ ...routed, provider: selection.upstream })
    plan = planned instanceof Promise ? await planned : planned
    if (state.admission === undefined) await admitRequest(state, routed)
  } catch (error) {
    selection.finish(neutralVerdict)
    if (state.metered === undefined) throw error
    return undefined
  }
  return plan
}

/**
 * Admits the request once, for the most any of its routes may use — tokens and money apart, each
 * at its most — and starts its metering. A key with a money budget is refused a model that has no
 * price, unless the config allows unpriced models.
 */
async function admitRequest(state: LoopState, routed: RoutedCall): Promise<void> {
  const { runtime, scope, key } = state
  // The team, the organisation and the end user are checked and charged with the key, at once.
  const subjects = requestSubjects(runtime, scope, key)
  // Only money budgets hold a cost: a request without one spends nothing on estimating it.
  const budgeted = hasMoneyBudget(key) || subjectsSpendMoney(subjects)
  if (refusesUnpriced(runtime, routed.route, key, budgeted)) {
    throw unpricedModelError(routed.route)
  }
  const fallbacks = routed.route.model.fallbacks
  let reserve = { estimatedTokens: routed.estimatedTokens, estimate: routed.estimate }
  let costNano = budgeted ? routeCostEstimate(runtime, routed.route, key, routed.estimate) : 0
  if (fallbacks !== undefined && fallbacks.length > 0) {
    // A fallback model may be allowed a longer output, or cost more, than the call's own: hold
    // the most.
    state.fallbacks = await fallbackRoutes(runtime, key, routed.route)
    for (const route of state.fallbacks) {
      const other = rerouteCall(runtime, routed, route)
      if (other.estimatedTokens > reserve.estimatedTokens) reserve = other
      if (budgeted) {
        costNano = Math.max(costNano, routeCostEstimate(runtime, route, key, other.estimate))
      }
    }
  }
  const estimate = costNano > 0 ? { ...reserve.estimate, costNano } : reserve.estimate
  state.admission = await admit(runtime, scope, key, { ...reserve, estimate, subjects })
  state.metered = startMeteredRequest(
    runtime,
    scope,
    state.admission.reservation,
    state.details,
    state.estimate,
    state.pricing,
  )
}
