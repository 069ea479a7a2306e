import { modelEntryProfile } from '../../models/match-profile'
import type { ReasoningControl } from '../../models/profile'
import { keyMayUseGroup } from '../../routing/resolve-route'
import type { KeyRecord } from '../../auth/key-store'
import { listedPricing } from '../../pricing/listed-price'
import { routePricing, upstreamSurcharge } from '../../relay/route-price'
import type { Route } from '../../routing/resolve-route'
import type { Group } from '../../routing/group-registry'
import type { GroupCacheCounts } from '../../cache/cache-stats'
import type { ConsoleRequest } from '../server/context'
import { findKey } from '../server/key-directory'

/** The key prices are shown for to admins and viewers: no multiplier of its own. */
const noKey: KeyRecord = { id: '' }

/**
 * `GET <mount>/api/models`: the model catalogue, by group — every model the signed-in user may
 * call (a key holder: their key's groups), with its call names, protocol, upstream model, limits
 * and capabilities from the model profiles, its price per 1M tokens with where it comes from and
 * as of when (`null`: unpriced), and fallbacks. Prices are the ones `GET /v1/models` lists: a key
 * holder sees what their key is charged (the group's and key's multipliers applied), admins and
 * viewers the list price with the group's multiplier.
 */
export async function modelsCall(call: ConsoleRequest) {
  const runtime = call.deps.gateway.runtime
  const user = call.user
  const record = user.role === 'key' ? (await findKey(call.deps, user.keyId))?.record : undefined
  const groups = []
  for (const group of await runtime.registry.list()) {
    if (user.role === 'key' && (record === undefined || !keyMayUseGroup(record, group.id))) continue
    groups.push({
      id: group.id,
      protocol: group.protocol,
      cache: cacheOf(group, runtime.cacheStats.of(group.id)),
      models: group.models.map((model) => {
        const profile = modelEntryProfile(model)
        return {
          name: model.name,
          pinnedName: runtime.groupIdRouting ? `${group.id}/${model.name}` : null,
          upstreamModel: model.upstreamModel,
          family: profile.family,
          contextWindow: profile.contextWindow ?? null,
          maxOutputTokens: profile.maxOutputTokens ?? null,
          capabilities: {
            tools: true,
            forcedToolChoice: profile.forcedToolChoice,
            vision: profile.imageInput,
            documents: profile.documentInput,
            reasoning: describeReasoning(profile.reasoning),
            structuredOutput: profile.structuredOutput,
          },
          price: priceOf(routePricing(runtime, { group, model }, record ?? noKey), {
            group,
            model,
          }),
          fallbacks: [...(model.fallbacks ?? [])],
        }
      }),
    })
  }
  return { groupIdRouting: runtime.groupIdRouting, groups }
}

/**
 * A model's price as listed, with its source and date, and the surcharges of the group's upstreams
 * that charge more for it where they run it; `null` for an unpriced model.
 */
function priceOf(pricing: ReturnType<typeof routePricing>, route: Route) {
  const listed = listedPricing(pricing, 'camel')
  if (listed === undefined || pricing.price === undefined) return null
  const surcharges = route.group.upstreams.flatMap((upstream) => {
    const surcharge = upstreamSurcharge(upstream, route)
    return surcharge === undefined
      ? []
      : [{ upstream: upstream.id, multiplier: surcharge.multiplier, source: surcharge.source }]
  })
  return {
    ...listed,
    multiplier: pricing.multiplier,
    row: pricing.price.model,
    source: pricing.price.source,
    asOf: pricing.price.asOf ?? null,
    surcharges,
  }
}

/** How a model reasons, in words. */
function describeReasoning(control: ReasoningControl): string {
  switch (control.kind) {
    case 'any':
      return 'unknown model: passed through'
    case 'none':
      return 'no'
    case 'always':
      return 'always on'
    case 'effort':
      return `effort: ${control.efforts.join(', ')}`
    case 'budget':
      return `thinking budget ${control.min}${control.max === undefined ? '+' : `–${control.max}`} tokens`
    case 'adaptive':
      return `adaptive, effort: ${control.efforts.join(', ')}`
    case 'level':
      return `thinking level: ${control.levels.join(', ')}`
    case 'toggle':
      return 'on or off'
  }
}

/**
 * A group's response cache as the console shows it: its settings and this instance's counts since
 * it started (hit rate = hits / (hits + misses)); `null` for a group without `cache`.
 */
function cacheOf(group: Group, counts: GroupCacheCounts) {
  if (group.cache === undefined) return null
  const looked = counts.hits + counts.misses
  return {
    ttlSeconds: group.cache.ttlSeconds,
    scope: group.cache.scope ?? 'key',
    toolCalls: group.cache.toolCalls === true,
    hits: counts.hits,
    misses: counts.misses,
    bypasses: counts.bypasses,
    hitRate: looked === 0 ? null : counts.hits / looked,
    savedUsd: counts.savedNanoUsd / 1e9,
  }
}
