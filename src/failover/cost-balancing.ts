import type { Candidate } from './balancing'
import type { StrategyPick } from './latency-balancing'

/** What cost balancing reads of one candidate. */
export type CostCandidate = Candidate & {
  /** × the catalogue's price on this upstream for an upstream model: surcharge × multiplier. */
  priceFactor(model: string | undefined): number
}

/** Costs within this ratio of the cheapest are a tie, broken by weight. */
const tieRatio = 1.01

/**
 * `balancing: "cost"`: the fit candidate whose price for the call's estimated tokens is lowest.
 * `estimateNano` is that estimate at the catalogue's price (the group's and key's multipliers are
 * the same on every upstream, so they are left out); each upstream multiplies it by its regional
 * surcharge and its `priceMultiplier`. Candidates within 1% of the cheapest are drawn by weight.
 * An unpriced model (`estimateNano` undefined) leaves `pick.index` at -1: the caller balances by
 * weight.
 */
export function chooseByCost(
  candidates: readonly CostCandidate[],
  fit: Uint8Array,
  model: string | undefined,
  estimateNano: number | undefined,
  random: () => number,
  pick: StrategyPick,
): void {
  pick.index = -1
  pick.score = undefined
  pick.explored = undefined
  if (estimateNano === undefined || !Number.isFinite(estimateNano)) return
  let cheapest = Infinity
  for (let index = 0; index < candidates.length; index += 1) {
    if (fit[index] === 0) continue
    const cost = estimateNano * candidates[index]!.priceFactor(model)
    if (cost < cheapest) cheapest = cost
  }
  if (cheapest === Infinity) return
  const limit = cheapest * tieRatio
  // A weighted draw among the ties, in one pass (weighted reservoir sampling).
  let total = 0
  for (let index = 0; index < candidates.length; index += 1) {
    if (fit[index] === 0) continue
    const candidate = candidates[index]!
    const cost = estimateNano * candidate.priceFactor(model)
    if (cost > limit) continue
    total += candidate.weight
    if (pick.index === -1 || random() * total < candidate.weight) {
      pick.index = index
      pick.score = cost
    }
  }
}
