/**
 * What an upstream charges for a model over the catalogue's list price because of where the model
 * runs there: a regional endpoint over a global one, a data-zone deployment over a global one.
 * The catalogue prices a model; a surcharge prices the place. It is part of the list price the
 * vendor bills (a request's `listNanoUsd` includes it), and the group's and key's
 * `priceMultiplier` apply on top of it.
 */
export type PriceSurcharge = {
  /** What the catalogue's price is multiplied by (1.1: 10% more). */
  readonly multiplier: number
  /** The vendor page that documents it. */
  readonly source: string
}

/**
 * A surcharge rule memoised by upstream model name, so that an upstream answers each attempt
 * with the same object (or `undefined`) and pricing a request allocates nothing new.
 */
export function memoisedSurcharge(
  rule: (upstreamModel: string) => PriceSurcharge | undefined,
): (upstreamModel: string) => PriceSurcharge | undefined {
  const byModel = new Map<string, PriceSurcharge | null>()
  return (upstreamModel) => {
    const cached = byModel.get(upstreamModel)
    if (cached !== undefined) return cached ?? undefined
    const surcharge = rule(upstreamModel)
    // Model names come from the config (entries' upstream models): a bounded set. The limit only
    // guards a provider handed arbitrary names by code.
    if (byModel.size >= 1000) byModel.clear()
    byModel.set(upstreamModel, surcharge ?? null)
    return surcharge
  }
}
