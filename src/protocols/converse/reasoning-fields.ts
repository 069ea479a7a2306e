import type { ChatRequest } from '../../canonical/types'
import type { ModelTarget } from '../../models/model-target'
import { nearestEffort, reasoningOff, reasoningOn, wantedEffort } from '../../models/reasoning-fit'

/**
 * The reasoning request as Converse carries it: the Converse API has no reasoning field of its
 * own, so it goes in `additionalModelRequestFields`, in the form the model takes.
 *
 * - `effort` models (Nova 2): `reasoningConfig: {type: "enabled", maxReasoningEffort}` with the
 *   nearest accepted effort, or `{type: "disabled"}` for `none`.
 * - `budget` models (Claude through Converse): `thinking: {type: "enabled", budget_tokens}`, the
 *   budget within the model's range; `{type: "disabled"}` to turn it off where it can be.
 * - `always` models (DeepSeek R1) reason without a field; `none` models and models whose control
 *   Converse has no form for get nothing. A dropped request is noted.
 *
 * @see https://docs.aws.amazon.com/nova/latest/userguide/extended-thinking.html
 */
export function converseReasoningFields(
  request: ChatRequest,
  target: ModelTarget,
): Record<string, unknown> {
  const reasoning = request.reasoning
  if (reasoning === undefined) return {}
  const off = reasoningOff(reasoning)
  if (!off && !reasoningOn(reasoning)) return {}
  const control = target.profile.reasoning
  switch (control.kind) {
    case 'effort': {
      if (off) {
        return control.efforts.includes('none')
          ? { reasoningConfig: { type: 'disabled' } }
          : dropped(target, reasoning, `${target.profile.family} cannot turn reasoning off`)
      }
      const wanted = wantedEffort(reasoning) ?? 'medium'
      const effort = nearestEffort(wanted, control.efforts)
      if (effort === undefined || effort === 'none') return {}
      return { reasoningConfig: { type: 'enabled', maxReasoningEffort: effort } }
    }
    case 'budget': {
      if (off) {
        return control.canDisable
          ? { thinking: { type: 'disabled' } }
          : dropped(target, reasoning, `${target.profile.family} cannot turn thinking off`)
      }
      const asked = reasoning.budgetTokens ?? budgetOfEffort(wantedEffort(reasoning))
      const budget = Math.min(Math.max(asked, control.min), control.max ?? Infinity)
      return { thinking: { type: 'enabled', budget_tokens: budget } }
    }
    case 'always':
      return off ? dropped(target, reasoning, `${target.profile.family} always reasons`) : {}
    default:
      return dropped(
        target,
        reasoning,
        `the Converse API has no reasoning field for ${target.profile.family}`,
      )
  }
}

function budgetOfEffort(effort: string | undefined): number {
  return effort === 'low' || effort === 'minimal' ? 1024 : effort === 'medium' ? 8192 : 16_384
}

function dropped(
  target: ModelTarget,
  reasoning: NonNullable<ChatRequest['reasoning']>,
  reason: string,
): Record<string, unknown> {
  target.adjustments.push({
    field: 'additionalModelRequestFields',
    change: 'dropped',
    from: reasoning,
    reason,
  })
  return {}
}
