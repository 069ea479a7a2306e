import type { ChatRequest } from '../../canonical/types'
import { dropped } from '../../models/fit-request'
import type { ModelTarget } from '../../models/model-target'
import type { ReasoningEffort } from '../../models/profile'
import {
  effortOfBudget,
  lowestEffort,
  nearestEffort,
  reasoningOff,
  reasoningOn,
  wantedEffort,
} from '../../models/reasoning-fit'

/** The reasoning fields of a chat-completions body, and whether the model will reason. */
export type OpenAIReasoningFields = { fields: Record<string, unknown>; reasons: boolean }

/**
 * Canonical reasoning → the fields an OpenAI-style model takes (RSN-01, RSN-02). `field` names the
 * effort in adjustments (`reasoning.effort` on the Responses API).
 *
 *
 * - `effort` models get `reasoning_effort`, mapped to the nearest value they accept (`minimal` to
 *   o3 is `low`, `xhigh` to GPT-5 is `high`); a budget is first an effort (≤ 1024 low, ≤ 8192
 *   medium, else high); "off" is `none` where accepted, else the lowest effort.
 * - Models that do not reason, and models that always reason, get no field.
 * - `toggle` models get `thinking: {type: "enabled" | "disabled"}` (GLM with preserved thinking:
 *   `clear_thinking: false` beside `enabled`) or `enable_thinking`.
 * - Any other control (an unknown model, or a Claude or Gemini model behind an OpenAI-compatible
 *   router) gets the plain mapping: the effort, or the budget's effort; `none` is left out.
 */
export function encodeOpenAIReasoning(
  reasoning: ChatRequest['reasoning'],
  target: ModelTarget,
  field = 'reasoning_effort',
): OpenAIReasoningFields {
  const { profile } = target
  const control = profile.reasoning
  const asked = reasoningOn(reasoning) || reasoningOff(reasoning)
  switch (control.kind) {
    case 'none':
      if (reasoningOn(reasoning))
        dropped(target, field, describe(reasoning), `${profile.family} does not reason`)
      return { fields: {}, reasons: false }
    case 'always':
      if (asked)
        dropped(
          target,
          field,
          describe(reasoning),
          `${profile.family} always reasons and takes no reasoning field`,
        )
      return { fields: {}, reasons: true }
    case 'effort': {
      const efforts = control.efforts
      const canStop = efforts.includes('none')
      if (!asked) return { fields: {}, reasons: !canStop }
      let effort: ReasoningEffort | undefined
      if (reasoningOff(reasoning)) effort = canStop ? 'none' : lowestEffort(efforts)
      else effort = nearestEffort(wantedEffort(reasoning!) ?? 'medium', efforts)
      if (effort === undefined) return { fields: {}, reasons: !canStop }
      const from = describe(reasoning)
      if (from !== effort) {
        target.adjustments.push({
          field,
          change: 'mapped',
          from,
          to: effort,
          reason: `${profile.family} takes reasoning_effort ${efforts.join(', ')}`,
        })
      }
      return { fields: { reasoning_effort: effort }, reasons: effort !== 'none' }
    }
    case 'toggle': {
      if (!asked) return { fields: {}, reasons: false }
      const on = reasoningOn(reasoning)
      // GLM's preserved thinking rides on the switch: `clear_thinking: false` with it on.
      const preserved = on && control.clearThinking === false ? { clear_thinking: false } : {}
      return {
        fields:
          control.field === 'thinking'
            ? { thinking: { type: on ? 'enabled' : 'disabled', ...preserved } }
            : { enable_thinking: on },
        reasons: on,
      }
    }
    case 'any':
    case 'budget':
    case 'adaptive':
    case 'level': {
      if (!reasoningOn(reasoning)) return { fields: {}, reasons: false }
      const effort = reasoning.effort ?? effortOfBudget(reasoning.budgetTokens ?? 2048)
      return { fields: { reasoning_effort: effort }, reasons: true }
    }
    default: {
      const unknown: never = control
      throw new Error(`Unknown reasoning control ${JSON.stringify(unknown)}`)
    }
  }
}

/** How the client asked, for an adjustment's `from`: its effort, or its budget. */
function describe(reasoning: ChatRequest['reasoning']): unknown {
  if (reasoning === undefined) return undefined
  if (reasoning.effort !== undefined) return reasoning.effort
  if (reasoning.budgetTokens !== undefined) return { budget_tokens: reasoning.budgetTokens }
  return reasoning.enabled === true ? 'enabled' : undefined
}
