import type { ModelProfile } from '../models/profile'
import type { ProtocolName } from '../protocols/protocol-name'
import type { RoutePricing } from './resolved-price'
import { usdPerMillion } from './price-units'
import type { CategoryRates } from './resolved-price'

/**
 * A model as listed: the call name, the group that serves it and its protocol, the upstream
 * model's profile, whose limits the lists carry, and its price for the calling key.
 */
export type ListedModel = {
  id: string
  groupId: string
  protocol: ProtocolName
  profile: ModelProfile
  pricing: RoutePricing
}

/**
 * A model's price as `GET /v1/models` lists it for the calling key: USD per 1M tokens of each
 * category, its group's and key's `priceMultiplier` applied (what this key is charged, not the
 * list price), the long-context tiers, and USD per request when there is one. An extension field
 * (`pricing`) that clients which do not know it ignore; `undefined` for an unpriced model.
 */
export function listedPricing(pricing: RoutePricing, style: 'snake' | 'camel') {
  const { price, multiplier } = pricing
  if (price === undefined) return undefined
  const name = style === 'snake' ? snakeNames : camelNames
  const categories = (rates: CategoryRates) => ({
    [name.input]: charged(rates.input, multiplier),
    [name.output]: charged(rates.output, multiplier),
    [name.cachedInput]: charged(rates.cachedInput, multiplier),
    [name.cacheWrite]: charged(rates.cacheWrite, multiplier),
    [name.cacheWrite1h]: charged(rates.cacheWrite1h, multiplier),
  })
  return {
    currency: 'USD',
    [name.unit]: 'per 1M tokens',
    ...categories(price.base),
    ...(price.perRequestPico === 0
      ? {}
      : { [name.perRequest]: round6((price.perRequestPico / 1e12) * multiplier) }),
    ...(price.tiers.length === 0
      ? {}
      : {
          tiers: price.tiers.map((tier) => ({
            [name.above]: tier.aboveInputTokens,
            ...categories(tier.rates),
          })),
        }),
  }
}

/** `{ pricing }` for a priced model, `{}` for an unpriced one: to spread into a list entry. */
export function pricingField(pricing: RoutePricing, style: 'snake' | 'camel') {
  const listed = listedPricing(pricing, style)
  return listed === undefined ? {} : { pricing: listed }
}

const snakeNames = {
  unit: 'unit',
  input: 'input',
  output: 'output',
  cachedInput: 'cached_input',
  cacheWrite: 'cache_write',
  cacheWrite1h: 'cache_write_1h',
  perRequest: 'per_request',
  above: 'above_input_tokens',
}
const camelNames = {
  unit: 'unit',
  input: 'input',
  output: 'output',
  cachedInput: 'cachedInput',
  cacheWrite: 'cacheWrite',
  cacheWrite1h: 'cacheWrite1h',
  perRequest: 'perRequest',
  above: 'aboveInputTokens',
}

function charged(pico: number, multiplier: number): number {
  return round6(usdPerMillion(pico) * multiplier)
}

/** Six decimals: a multiplied price shown as USD, not as float noise (3.5999999999999996). */
function round6(usd: number): number {
  return Math.round(usd * 1e6) / 1e6
}
