import type { KeyRecord } from '../auth/key-store'
import { GatewayError } from '../errors'
import type { GatewayRuntime } from '../gateway-runtime'
import type { Route } from '../routing/resolve-route'
import type { TokenEstimate } from '../canonical/token-usage'
import type { RoutePricing } from '../pricing/resolved-price'
import { estimatedCostNano } from '../pricing/usage-cost'

export type { RoutePricing } from '../pricing/resolved-price'

/** The pricing of a route for a key. */
export function routePricing(runtime: GatewayRuntime, route: Route, key: KeyRecord): RoutePricing {
  return {
    price: runtime.prices.forModel(route.model),
    multiplier: (route.group.priceMultiplier ?? 1) * (key.priceMultiplier ?? 1),
  }
}

/** Whether a key has a money budget (`keys[].budget`). */
export function hasMoneyBudget(key: KeyRecord): boolean {
  const budget = key.budget
  return budget !== undefined && (!Array.isArray(budget) || budget.length > 0)
}

/**
 * Whether a route may not serve this key: it (or, with `budgeted`, its team, organisation or end
 * user) has a money budget, the route's model has no price
 * (its spend could not be counted), and the config refuses that (`unpricedModels: 'refuse'`, the
 * default).
 */
export function refusesUnpriced(
  runtime: GatewayRuntime,
  route: Route,
  key: KeyRecord,
  budgeted: boolean = hasMoneyBudget(key),
): boolean {
  return (
    runtime.unpricedModels === 'refuse' &&
    budgeted &&
    runtime.prices.forModel(route.model) === undefined
  )
}

/** The 403 a key with a money budget gets for an unpriced model. */
export function unpricedModelError(route: Route): GatewayError {
  return new GatewayError(
    'permission',
    `This API key has a spend budget, and model "${route.model.name}" (upstream model "${route.model.upstreamModel}") has no price, so what it spends cannot be counted. An operator can price it (prices, models[].price) or allow unpriced models (unpricedModels: "allow").`,
  )
}

/** What a reservation holds against money budgets for this route: 0 when it is unpriced. */
export function routeCostEstimate(
  runtime: GatewayRuntime,
  route: Route,
  key: KeyRecord,
  estimate: TokenEstimate,
): number {
  const pricing = routePricing(runtime, route, key)
  return pricing.price === undefined
    ? 0
    : estimatedCostNano(pricing.price, estimate, pricing.multiplier)
}
