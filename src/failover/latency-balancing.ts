import type { Candidate } from './balancing'
import type { LatencyMeasure, LatencyPair } from './latency-measure'

/** What latency balancing reads of one candidate. */
export type LatencyCandidate = Candidate & {
  /** The measures of this upstream for an upstream model (`undefined`: calls without one). */
  latencyOf(model: string | undefined): LatencyPair
}

/** A strategy's pick: the index chosen (-1: the strategy has nothing to go by), and its score. */
export type StrategyPick = {
  index: number
  score: number | undefined
  /** Set when the pick explores an unmeasured upstream: its measure, marked `probing`. */
  explored: LatencyMeasure | undefined
}

// Scratch for the median: `select` is synchronous, so one pick never sees another's.
let scratch = new Float64Array(8)

/**
 * `balancing: "latency"`: the fit candidate with the lowest `measure × (inFlight + 1) ÷ weight`
 * (the weight a prior: twice the weight takes twice the latency to lose), measured on this
 * instance for this upstream model and this kind of call (streams and JSON answers never
 * compared).
 *
 * An upstream without a fresh measure is explored: it scores as the median of its measured peers
 * (never 0, which would send it everything; never a division by zero), and has at most one call
 * out to it at a time until its first sample comes back. When no fit candidate is measured yet,
 * `pick.index` is -1 and the caller balances by weight (a cold start).
 */
export function chooseByLatency(
  candidates: readonly LatencyCandidate[],
  fit: Uint8Array,
  model: string | undefined,
  stream: boolean,
  at: number,
  random: () => number,
  pick: StrategyPick,
): void {
  pick.index = -1
  pick.score = undefined
  pick.explored = undefined
  if (scratch.length < candidates.length) scratch = new Float64Array(candidates.length * 2)
  let measured = 0
  let best = -1
  let bestScore = Infinity
  let ties = 0
  for (let index = 0; index < candidates.length; index += 1) {
    if (fit[index] === 0) continue
    const candidate = candidates[index]!
    const measure = kindOf(candidate.latencyOf(model), stream)
    if (!measure.fresh(at)) continue
    const base = measure.value / candidate.weight
    scratch[measured] = base
    measured += 1
    const score = base * (candidate.inFlight + 1)
    if (score < bestScore) {
      best = index
      bestScore = score
      ties = 1
    } else if (score === bestScore) {
      ties += 1
      if (random() * ties < 1) best = index
    }
  }
  if (measured === 0) return
  const median = medianOf(scratch, measured)
  for (let index = 0; index < candidates.length; index += 1) {
    if (fit[index] === 0) continue
    const candidate = candidates[index]!
    const measure = kindOf(candidate.latencyOf(model), stream)
    if (measure.fresh(at) || measure.probing) continue
    const score = median * (candidate.inFlight + 1)
    if (score < bestScore) {
      best = index
      bestScore = score
      pick.explored = measure
    }
  }
  // Only unmeasured candidates with their probe out are left besides busy measured ones: the
  // best measured one still takes the call (`best` is never -1 here: one was measured).
  pick.index = best
  pick.score = bestScore
}

function kindOf(pair: LatencyPair, stream: boolean): LatencyMeasure {
  return stream ? pair.stream : pair.json
}

/** The median of the first `count` values (sorted in place: at most a group's upstreams). */
function medianOf(values: Float64Array, count: number): number {
  const part = values.subarray(0, count).sort()
  const middle = count >> 1
  return count % 2 === 1 ? part[middle]! : (part[middle - 1]! + part[middle]!) / 2
}
