/**
 * Priority tiers: a call goes to the lowest tier (`upstreams[].priority`, default 0) that has an
 * upstream able to take it. The tier is found from the candidates' state on every attempt, never
 * from the attempt's index, so an upstream leaving or rejoining never shifts the order of the
 * rest.
 *
 * @module
 */

/** What tiering reads of one candidate. */
export type Tiered = { readonly priority: number }

/**
 * Keeps in `fit` only the candidates of the lowest tier among the fit ones, and returns that tier
 * (0 when none is fit). One pass to find it, one to clear the rest, nothing allocated.
 */
export function keepLowestTier(candidates: readonly Tiered[], fit: Uint8Array): number {
  let lowest = Infinity
  for (let index = 0; index < candidates.length; index += 1) {
    if (fit[index] === 1 && candidates[index]!.priority < lowest) {
      lowest = candidates[index]!.priority
    }
  }
  if (lowest === Infinity) return 0
  for (let index = 0; index < candidates.length; index += 1) {
    if (fit[index] === 1 && candidates[index]!.priority !== lowest) fit[index] = 0
  }
  return lowest
}
