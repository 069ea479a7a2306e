import type { KeyRecord } from '../auth/key-store'
import { GatewayError } from '../errors'
import type { GatewayRuntime } from '../gateway-runtime'
import type { Route } from '../routing/resolve-route'
import type { UpstreamProvider } from '../upstream/provider'
import type { TokenEstimate } from '../canonical/token-usage'
import type { PriceSurcharge } from '../pricing/price-surcharge'
import type { RoutePricing } from '../pricing/resolved-price'
import { estimatedCostNano } from '../pricing/usage-cost'

export type { RoutePricing } from '../pricing/resolved-price'

/**
 * The pricing of a route for a key, before an upstream is chosen: no surcharge yet (the attempt
 * loop sets the answering upstream's, `upstreamSurcharge`).
 */
export function routePricing(runtime: GatewayRuntime, route: Route, key: KeyRecord): RoutePricing {
  return {
    price: runtime.prices.forModel(route.model),
    multiplier: (route.group.priceMultiplier ?? 1) * (key.priceMultiplier ?? 1),
    surcharge: undefined,
  }
}

/**
 * The surcharge an upstream charges for a route's model (`undefined` for most upstreams): its
 * regional surcharge, times its own `priceMultiplier` when it has one (the same object for the
 * same upstream and model, so that pricing an attempt allocates nothing after the first).
 */
export function upstreamSurcharge(
  upstream: UpstreamProvider,
  route: Route,
): PriceSurcharge | undefined {
  const model = route.model.upstreamModel
  const regional = upstream.priceSurcharge?.(model)
  const own = upstream.priceMultiplier
  if (own === undefined || own === 1) return regional
  let byModel = withMultiplier.get(upstream)
  if (byModel === undefined) {
    byModel = new Map()
    withMultiplier.set(upstream, byModel)
  }
  const cached = byModel.get(model)
  if (cached !== undefined && cached.regional === regional) return cached.surcharge
  const surcharge: PriceSurcharge = {
    multiplier: (regional?.multiplier ?? 1) * own,
    source:
      regional === undefined
        ? 'upstreams[].priceMultiplier'
        : `${regional.source} × upstreams[].priceMultiplier`,
  }
  // Model names come from the config's entries: a bounded set per upstream.
  byModel.set(model, { regional, surcharge })
  return surcharge
}

const withMultiplier = new WeakMap<
  UpstreamProvider,
  Map<string, { regional: PriceSurcharge | undefined; surcharge: PriceSurcharge }>
>()

/**
 * The call's estimated cost at the catalogue's price of its model, in nano-USD, before any
 * multiplier or surcharge: what `balancing: "cost"` multiplies by each upstream's price factor.
 * `undefined` for an unpriced model.
 */
export function routeEstimateNano(
  runtime: GatewayRuntime,
  route: Route,
  estimate: TokenEstimate,
): number | undefined {
  const price = runtime.prices.forModel(route.model)
  return price === undefined ? undefined : estimatedCostNano(price, estimate, 1)
}

/**
 * The highest surcharge any upstream of the route's group charges for its model, for a
 * reservation made before an upstream is chosen: the hold is then never short of what the
 * answering upstream charges. Found once per model entry.
 */
function highestSurcharge(route: Route): PriceSurcharge | undefined {
  const cached = highest.get(route.model)
  if (cached !== undefined) return cached ?? undefined
  let found: PriceSurcharge | undefined
  for (const upstream of route.group.upstreams) {
    const surcharge = upstreamSurcharge(upstream, route)
    if (surcharge !== undefined && surcharge.multiplier > (found?.multiplier ?? 1)) {
      found = surcharge
    }
  }
  highest.set(route.model, found ?? null)
  return found
}

// By model entry: each is built for one group (the config makes an entry per group's model).
const highest = new WeakMap<Route['model'], PriceSurcharge | null>()

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

/**
 * What a reservation holds against money budgets for this route: 0 when it is unpriced. An
 * upstream's surcharge counts at the highest of the group's (the upstream is not chosen yet).
 */
export function routeCostEstimate(
  runtime: GatewayRuntime,
  route: Route,
  key: KeyRecord,
  estimate: TokenEstimate,
): number {
  const pricing = routePricing(runtime, route, key)
  if (pricing.price === undefined) return 0
  const surcharge = highestSurcharge(route)
  const multiplier =
    surcharge === undefined ? pricing.multiplier : pricing.multiplier * surcharge.multiplier
  return estimatedCostNano(pricing.price, estimate, multiplier)
}
