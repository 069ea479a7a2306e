import type { AttemptChoice, ChoiceStrategy } from '../usage/upstream-attempt'
import { bySessionHash, chooseCandidate, weighted, type Balancing } from './balancing'
import { chooseByCost } from './cost-balancing'
import { chooseByLatency, type StrategyPick } from './latency-balancing'
import { keepLowestTier } from './priority-tiers'
import type { SelectContext } from './upstream-selector'
import type { UpstreamState } from './upstream-state'

/** One pick's outcome: the index chosen (-1: none is fit), its tier, strategy and score. */
export type UpstreamPick = StrategyPick & { tier: number; strategy: ChoiceStrategy }

/** A pick to reuse: `select` is synchronous, so one pick never sees another's. */
export function newPick(): UpstreamPick {
  return { index: -1, score: undefined, explored: undefined, tier: 0, strategy: 'weighted' }
}

/**
 * Chooses among the candidates marked in `fit`, in order: the lowest priority tier with a fit
 * candidate (the rest are unmarked); within it the session's rendezvous choice when the call has
 * a session hint (affinity wins over every strategy while its upstream is fit); else the group's
 * balancing. A strategy with nothing to go by (latency before any sample, cost of an unpriced
 * model) balances by weight, so a fit candidate is always chosen when there is one.
 */
export function chooseUpstream(
  states: readonly UpstreamState[],
  fit: Uint8Array,
  tiered: boolean,
  balancing: Balancing,
  sessionHash: number | undefined,
  context: SelectContext,
  at: number,
  random: () => number,
  pick: UpstreamPick,
): void {
  pick.tier = tiered ? keepLowestTier(states, fit) : (states[0]?.priority ?? 0)
  pick.score = undefined
  pick.explored = undefined
  if (sessionHash !== undefined) {
    pick.index = bySessionHash(states, fit, sessionHash)
    pick.strategy = 'affinity'
    return
  }
  switch (balancing) {
    case 'latency':
      chooseByLatency(states, fit, context.model, context.stream === true, at, random, pick)
      if (pick.index >= 0) {
        pick.strategy = 'latency'
        return
      }
      break
    case 'cost':
      chooseByCost(states, fit, context.model, context.estimateNano, random, pick)
      if (pick.index >= 0) {
        pick.strategy = 'cost'
        return
      }
      break
    case 'least-in-flight':
      pick.index = chooseCandidate(states, fit, balancing, undefined, random)
      pick.strategy = 'least-in-flight'
      return
    default:
      break
  }
  pick.index = weighted(states, fit, random)
  pick.strategy = 'weighted'
  pick.score = undefined
  pick.explored = undefined
}

/**
 * The choice record of a pick of `state`: shared when it has no score (`only` for a group of one
 * upstream), so that plain attempts can share their selection; allocated with a score.
 */
export function choiceOf(pick: UpstreamPick, state: UpstreamState, only: boolean): AttemptChoice {
  if (only) return state.onlyChoice
  if (pick.score === undefined) return state.sharedChoice(pick.strategy)
  return { tier: pick.tier, strategy: pick.strategy, score: pick.score }
}
