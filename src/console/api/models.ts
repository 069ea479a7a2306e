import { modelEntryProfile } from '../../models/match-profile'
import type { ReasoningControl } from '../../models/profile'
import { keyMayUseGroup } from '../../routing/resolve-route'
import type { ConsoleRequest } from '../server/context'
import { findKey } from '../server/key-directory'

/**
 * `GET <mount>/api/models`: the model catalogue, by group — every model the signed-in user may
 * call (a key holder: their key's groups), with its call names, protocol, upstream model, limits
 * and capabilities from the model profiles, and fallbacks.
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
          fallbacks: [...(model.fallbacks ?? [])],
        }
      }),
    })
  }
  return { groupIdRouting: runtime.groupIdRouting, groups }
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
