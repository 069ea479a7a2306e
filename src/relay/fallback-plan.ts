import type { KeyRecord } from '../auth/key-store'
import type { GatewayRuntime } from '../gateway-runtime'
import type { Group } from '../routing/group-registry'
import { keyMayUseGroup, type Route } from '../routing/resolve-route'
import { refusesUnpriced } from './route-price'

const none: readonly Route[] = []

/**
 * The routes a call falls back to when its own group is exhausted: its model entry's `fallbacks`
 * (`<group>/<model>` call names), in order, each resolved to its group and model entry. A fallback
 * the key may not use is skipped, as is one that names no known model (possible only with a custom
 * group registry: a config's fallbacks are checked when it is loaded), the route itself, and, for
 * a key with a money budget, one whose model has no price (unless unpriced models are allowed).
 * Fallbacks are not followed further: a fallback's own `fallbacks` are not tried.
 */
export async function fallbackRoutes(
  runtime: GatewayRuntime,
  key: KeyRecord,
  route: Route,
): Promise<readonly Route[]> {
  const names = route.model.fallbacks
  if (names === undefined || names.length === 0) return none
  const routes: Route[] = []
  for (const name of names) {
    const slash = name.indexOf('/')
    if (slash <= 0) continue
    const found = runtime.registry.get(name.slice(0, slash))
    const group: Group | undefined = found instanceof Promise ? await found : found
    if (group === undefined || !keyMayUseGroup(key, group.id)) continue
    const modelName = name.slice(slash + 1)
    const model = group.models.find((entry) => entry.name === modelName)
    if (model === undefined || (group === route.group && model === route.model)) continue
    const fallback = { group, model }
    if (refusesUnpriced(runtime, fallback, key)) continue
    routes.push(fallback)
  }
  return routes
}
