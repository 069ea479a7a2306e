import type { PriceSurcharge } from './price-surcharge'
import type { ModelPrice, PriceTier } from './model-price'
import { picoPerToken } from './price-units'

/** Pico-USD per token of each token category, every one resolved. */
export type CategoryRates = {
  input: number
  output: number
  cachedInput: number
  cacheWrite: number
  cacheWrite1h: number
}

/**
 * A model's price ready to charge: the price as listed (for records and listings), where it comes
 * from, and its rates in pico-USD per token, base first, then each tier by ascending threshold.
 * Built once per upstream model and cached, so pricing a request is a few integer products.
 */
export type ResolvedPrice = {
  /** The catalogue row (`claude-sonnet-4-5`) or the config pattern that priced the model. */
  model: string
  price: ModelPrice
  source: string
  asOf: string | undefined
  base: CategoryRates
  tiers: readonly { aboveInputTokens: number; rates: CategoryRates }[]
  perRequestPico: number
}

/**
 * Resolves a price into rates: categories the price leaves out fall back as `ModelPrice` says
 * (cache reads and writes at input, an hour's write at a 5-minute write), a tier's missing
 * categories scale with its input. `undefined` when a number is not an exact price (negative,
 * over six decimals): the config refuses those, so only a custom registry's price can get here.
 */
export function resolvePrice(
  model: string,
  price: ModelPrice,
  source: string,
  asOf: string | undefined,
): ResolvedPrice | undefined {
  const base = baseRates(price)
  if (base === undefined) return undefined
  const tiers: { aboveInputTokens: number; rates: CategoryRates }[] = []
  for (const tier of [...(price.tiers ?? [])].sort(
    (a, b) => a.aboveInputTokens - b.aboveInputTokens,
  )) {
    const rates = tierRates(tier, base)
    if (rates === undefined) return undefined
    tiers.push({ aboveInputTokens: tier.aboveInputTokens, rates })
  }
  const perRequestPico =
    price.perRequest === undefined ? 0 : picoPerToken(price.perRequest * 1_000_000)
  if (perRequestPico === undefined) return undefined
  return { model, price, source, asOf, base, tiers, perRequestPico }
}

/** The rates that apply to a request with this much input: the highest tier it passes, else base. */
export function ratesFor(
  price: ResolvedPrice,
  inputTokens: number,
): {
  rates: CategoryRates
  aboveInputTokens: number | undefined
} {
  for (let index = price.tiers.length - 1; index >= 0; index -= 1) {
    const tier = price.tiers[index]!
    if (inputTokens > tier.aboveInputTokens) {
      return { rates: tier.rates, aboveInputTokens: tier.aboveInputTokens }
    }
  }
  return { rates: price.base, aboveInputTokens: undefined }
}

function baseRates(price: ModelPrice): CategoryRates | undefined {
  const input = picoPerToken(price.input)
  const output = picoPerToken(price.output)
  const cachedInput = optional(price.cachedInput, input)
  const cacheWrite = optional(price.cacheWrite, input)
  const cacheWrite1h = optional(price.cacheWrite1h, cacheWrite)
  if (
    input === undefined ||
    output === undefined ||
    cachedInput === undefined ||
    cacheWrite === undefined ||
    cacheWrite1h === undefined
  ) {
    return undefined
  }
  return { input, output, cachedInput, cacheWrite, cacheWrite1h }
}

function tierRates(tier: PriceTier, base: CategoryRates): CategoryRates | undefined {
  const input = picoPerToken(tier.input)
  const output = picoPerToken(tier.output)
  if (input === undefined || output === undefined) return undefined
  // The base's ratio to input, carried to the tier: Anthropic's 200K tier doubles every category.
  const scaled = (rate: number) =>
    base.input === 0 ? input : Math.round((rate * input) / base.input)
  const cachedInput = optional(tier.cachedInput, scaled(base.cachedInput))
  const cacheWrite = optional(tier.cacheWrite, scaled(base.cacheWrite))
  const cacheWrite1h = optional(tier.cacheWrite1h, scaled(base.cacheWrite1h))
  if (cachedInput === undefined || cacheWrite === undefined || cacheWrite1h === undefined) {
    return undefined
  }
  return { input, output, cachedInput, cacheWrite, cacheWrite1h }
}

function optional(usd: number | undefined, fallback: number | undefined): number | undefined {
  return usd === undefined ? fallback : picoPerToken(usd)
}

/**
 * What a route's answer is charged at: the price of its model entry's upstream model (`undefined`
 * when it has none), the group's and key's multipliers together, and the surcharge of the
 * upstream that answers (`undefined` until an attempt picks one, and for most upstreams).
 * Mutable: the attempt loop points it at the route and upstream of the attempt that answers.
 */
export type RoutePricing = {
  price: ResolvedPrice | undefined
  multiplier: number
  surcharge: PriceSurcharge | undefined
}
