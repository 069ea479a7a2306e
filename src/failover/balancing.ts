import { rendezvousScore } from './rendezvous'

/**
 * How a group chooses among the upstreams fit to be tried in its lowest priority tier: `weighted`
 * picks at random in proportion to each upstream's weight; `least-in-flight` picks the one with
 * the fewest calls in flight for its weight (ties at random), which evens out upstreams of unequal
 * speed; `latency` the one this instance measured fastest lately (`chooseByLatency`); `cost` the
 * cheapest for the call's estimated tokens (`chooseByCost`).
 */
export type Balancing = 'weighted' | 'least-in-flight' | 'latency' | 'cost'

/** What balancing reads of one candidate upstream. */
export type Candidate = {
  readonly weight: number
  readonly inFlight: number
  /** `hashText` of the upstream's id, for session affinity. */
  readonly idHash: number
}

/**
 * The index of the chosen candidate among `candidates[i]` for which `fit[i]` is 1, or -1 when
 * none is. With a session hash, the session's rendezvous choice among the fit ones (the same
 * upstream while it stays fit); else by `balancing`. One pass for least-in-flight and affinity,
 * two for weighted (the sum, then one draw), and nothing allocated.
 */
export function chooseCandidate(
  candidates: readonly Candidate[],
  fit: Uint8Array,
  balancing: Balancing,
  sessionHash: number | undefined,
  random: () => number,
): number {
  if (sessionHash !== undefined) return bySessionHash(candidates, fit, sessionHash)
  return balancing === 'least-in-flight'
    ? leastInFlight(candidates, fit, random)
    : weighted(candidates, fit, random)
}

/** The session's rendezvous choice among the fit candidates, or -1 when none is fit. */
export function bySessionHash(
  candidates: readonly Candidate[],
  fit: Uint8Array,
  sessionHash: number,
): number {
  let best = -1
  let bestScore = -Infinity
  for (let index = 0; index < candidates.length; index += 1) {
    if (fit[index] === 0) continue
    const candidate = candidates[index]!
    const score = rendezvousScore(sessionHash, candidate.idHash, candidate.weight)
    if (score > bestScore) {
      best = index
      bestScore = score
    }
  }
  return best
}

/** Cumulative weights and one draw, as the gateway always picked: tests can pin the draw. */
export function weighted(
  candidates: readonly Candidate[],
  fit: Uint8Array,
  random: () => number,
): number {
  let total = 0
  let last = -1
  let count = 0
  for (let index = 0; index < candidates.length; index += 1) {
    if (fit[index] === 0) continue
    total += candidates[index]!.weight
    last = index
    count += 1
  }
  if (count <= 1) return last
  let point = random() * total
  for (let index = 0; index < candidates.length; index += 1) {
    if (fit[index] === 0) continue
    point -= candidates[index]!.weight
    if (point < 0) return index
  }
  return last
}

/** Fewest in flight per unit of weight; ties by reservoir sampling, so none is favoured. */
function leastInFlight(
  candidates: readonly Candidate[],
  fit: Uint8Array,
  random: () => number,
): number {
  let best = -1
  let bestLoad = Infinity
  let ties = 0
  for (let index = 0; index < candidates.length; index += 1) {
    if (fit[index] === 0) continue
    const candidate = candidates[index]!
    const load = candidate.inFlight / candidate.weight
    if (load < bestLoad) {
      best = index
      bestLoad = load
      ties = 1
    } else if (load === bestLoad) {
      ties += 1
      if (random() * ties < 1) best = index
    }
  }
  return best
}
