import type { TokenEstimate, TokenUsage } from '../canonical/token-usage'
import type { PriceSurcharge } from './price-surcharge'
import { ratesFor, type CategoryRates, type ResolvedPrice } from './resolved-price'
import { multiplierMicros, picoToNano, usdPerMillion } from './price-units'

/**
 * The price a request was charged at, as it stood then: USD per 1M tokens of each category (the
 * tier's, when the request passed one; a category the price left out shows what it fell back to)
 * and the multiplier applied. Records keep it, so a later price change never rewrites history.
 */
export type ChargedPrice = {
  /** The catalogue row or config pattern that priced the upstream model. */
  model: string
  input: number
  output: number
  cachedInput: number
  cacheWrite: number
  cacheWrite1h: number
  /** USD per request, when the price has one. */
  perRequest?: number | undefined
  /** The long-context tier applied: its threshold; absent at the base price. */
  aboveInputTokens?: number | undefined
  /** The group's and key's `priceMultiplier` together (1 when neither is set). */
  multiplier: number
  source: string
  asOf?: string | undefined
  /**
   * What the answering upstream charges over the rates above for where it ran the model (a
   * regional endpoint), and the page that says so; absent at the catalogue's price. The rates
   * above are the catalogue's: the list price is theirs times this multiplier.
   */
  surcharge?: PriceSurcharge | undefined
}

/**
 * What a request cost, in nano-USD (10⁻⁹ USD): `nanoUsd` is what the key is charged (list ×
 * multiplier), `listNanoUsd` the cost at list price (the upstream's surcharge included: it is
 * what the vendor bills there). A request that reported no usage (a failed
 * call, which vendors do not bill) costs 0. An unpriced model has no `UsageCost` at all: the
 * record's `cost` is `null`, never 0.
 */
export type UsageCost = {
  nanoUsd: number
  listNanoUsd: number
  price: ChargedPrice
}

/**
 * Prices a request's usage. Every category at its own rate — uncached input, cache reads, 5-minute
 * and 1-hour cache writes, output (reasoning included) — at the tier its whole input passes, plus
 * the per-request price; summed exactly in pico-USD, rounded once to nano-USD.
 *
 * @param multiplier the group's and key's `priceMultiplier` together
 * @param surcharge the answering upstream's, when it has one for this model
 */
export function usageCost(
  usage: TokenUsage | undefined,
  price: ResolvedPrice,
  multiplier: number,
  surcharge?: PriceSurcharge,
): UsageCost {
  if (usage === undefined) {
    return { nanoUsd: 0, listNanoUsd: 0, price: chargedPrice(price, 0, multiplier, surcharge) }
  }
  const { rates } = ratesFor(price, usage.inputTokens)
  const cachedRead = clamp(usage.cachedInputTokens)
  const written = clamp(usage.cacheWriteInputTokens)
  const writtenHour = clamp(usage.cacheWrite1hInputTokens)
  const uncached = Math.max(0, clamp(usage.inputTokens) - cachedRead - written - writtenHour)
  const pico =
    uncached * rates.input +
    cachedRead * rates.cachedInput +
    written * rates.cacheWrite +
    writtenHour * rates.cacheWrite1h +
    clamp(usage.outputTokens) * rates.output +
    price.perRequestPico
  if (surcharge === undefined) {
    return {
      nanoUsd: picoToNano(pico, multiplierMicros(multiplier)),
      listNanoUsd: picoToNano(pico),
      price: chargedPrice(price, usage.inputTokens, multiplier),
    }
  }
  // Both multipliers applied at once, so the charge is rounded once as without a surcharge.
  return {
    nanoUsd: picoToNano(pico, multiplierMicros(surcharge.multiplier * multiplier)),
    listNanoUsd: picoToNano(pico, multiplierMicros(surcharge.multiplier)),
    price: chargedPrice(price, usage.inputTokens, multiplier, surcharge),
  }
}

/**
 * What a reservation holds against a money budget: the input estimate at the input price of the
 * tier it passes, the output allowance at the output price, and the per-request price, with the
 * multiplier (a surcharge's included, when the caller knows one); rounded up, so the hold never
 * falls short by a rounding.
 */
export function estimatedCostNano(
  price: ResolvedPrice,
  estimate: TokenEstimate,
  multiplier: number,
): number {
  const input = clamp(estimate.inputTokens)
  const { rates } = ratesFor(price, input)
  const pico =
    input * rates.input + clamp(estimate.outputTokens) * rates.output + price.perRequestPico
  return picoToNano(pico, multiplierMicros(multiplier), 'up')
}

/**
 * The charged price's snapshot, built once per price, tier and multiplier: most requests of a
 * model share one object, so pricing a request allocates nothing new.
 */
function chargedPrice(
  price: ResolvedPrice,
  inputTokens: number,
  multiplier: number,
  surcharge?: PriceSurcharge,
): ChargedPrice {
  const { rates, aboveInputTokens } = ratesFor(price, inputTokens)
  const cache = (snapshots.get(price) ?? new Map<string, ChargedPrice>()) as Map<
    string,
    ChargedPrice
  >
  if (!snapshots.has(price)) snapshots.set(price, cache)
  const slot =
    surcharge === undefined
      ? `${aboveInputTokens ?? 0}:${multiplier}`
      : `${aboveInputTokens ?? 0}:${multiplier}:${surcharge.multiplier}:${surcharge.source}`
  let snapshot = cache.get(slot)
  if (snapshot === undefined) {
    snapshot = snapshotOf(price, rates, aboveInputTokens, multiplier, surcharge)
    if (cache.size < 64) cache.set(slot, snapshot)
  }
  return snapshot
}

const snapshots = new WeakMap<ResolvedPrice, Map<string, ChargedPrice>>()

function snapshotOf(
  price: ResolvedPrice,
  rates: CategoryRates,
  aboveInputTokens: number | undefined,
  multiplier: number,
  surcharge: PriceSurcharge | undefined,
): ChargedPrice {
  return Object.freeze({
    model: price.model,
    input: usdPerMillion(rates.input),
    output: usdPerMillion(rates.output),
    cachedInput: usdPerMillion(rates.cachedInput),
    cacheWrite: usdPerMillion(rates.cacheWrite),
    cacheWrite1h: usdPerMillion(rates.cacheWrite1h),
    ...(price.price.perRequest === undefined ? {} : { perRequest: price.price.perRequest }),
    ...(aboveInputTokens === undefined ? {} : { aboveInputTokens }),
    multiplier,
    source: price.source,
    ...(price.asOf === undefined ? {} : { asOf: price.asOf }),
    ...(surcharge === undefined
      ? {}
      : { surcharge: { multiplier: surcharge.multiplier, source: surcharge.source } }),
  })
}

function clamp(tokens: number): number {
  return Number.isFinite(tokens) && tokens > 0 ? Math.floor(tokens) : 0
}
