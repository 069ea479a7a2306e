import type { ChatRequest } from '../../canonical/types'
import { dropped } from '../../models/fit-request'
import type { ModelTarget } from '../../models/model-target'
import type { ReasoningEffort } from '../../models/profile'
import { nearestLevel, reasoningOff, reasoningOn, wantedEffort } from '../../models/reasoning-fit'

/**
 * Thinking budgets for reasoning efforts, before the model's range applies.
 */
const budgetByEffort: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 24576,
  max: 24576,
}

const field = 'generationConfig.thinkingConfig'

/**
 * Canonical reasoning → `thinkingConfig`, fitted to the model (RSN-03). Thoughts are asked for
 * (`includeThoughts`) whenever thinking is on.
 *
 * - Gemini 2.5 (`budget`): the client's budget or the effort's (minimal 512, low 1024, medium
 *   8192, high 24576) clamped to the family's range — 31,999 to 2.5 Flash is 24,576; "on, any
 *   size" is `-1` (dynamic); "off" is `0` where the family allows it, else its smallest budget
 *   (2.5 Pro: 128).
 * - Gemini 3 (`level`): `thinkingLevel`, the nearest level the model accepts (a budget is an
 *   effort first); thinking cannot be turned off, so "off" is the lowest level.
 * - Models that do not think (2.0) get nothing.
 * - Any other control gets the plain mapping, unclamped.
 *
 * @see https://ai.google.dev/gemini-api/docs/thinking
 */
export function geminiThinkingConfig(
  reasoning: ChatRequest['reasoning'],
  target: ModelTarget,
): Record<string, unknown> | undefined {
  const { profile } = target
  const control = profile.reasoning
  if (!reasoningOn(reasoning) && !reasoningOff(reasoning)) return undefined
  switch (control.kind) {
    case 'none':
    case 'always':
      if (reasoningOn(reasoning))
        dropped(target, field, reasoning, `${profile.family} takes no thinking configuration`)
      return undefined
    case 'level': {
      const wanted = reasoningOff(reasoning) ? 'minimal' : wantedEffort(reasoning!)
      if (wanted === undefined) return { includeThoughts: true }
      const level = nearestLevel(wanted, control.levels)
      if (level === undefined) return { includeThoughts: true }
      if (reasoningOff(reasoning) || reasoning?.budgetTokens !== undefined || level !== wanted) {
        target.adjustments.push({
          field: `${field}.thinkingLevel`,
          change: 'mapped',
          from: reasoningOff(reasoning) ? 'none' : (reasoning?.budgetTokens ?? wanted),
          to: level,
          reason: `${profile.family} takes thinking levels ${control.levels.join(', ')} and cannot turn thinking off`,
        })
      }
      return reasoningOff(reasoning)
        ? { thinkingLevel: level }
        : { thinkingLevel: level, includeThoughts: true }
    }
    case 'budget': {
      if (reasoningOff(reasoning)) {
        if (control.canDisable) return { thinkingBudget: 0 }
        target.adjustments.push({
          field: `${field}.thinkingBudget`,
          change: 'mapped',
          from: 0,
          to: control.min,
          reason: `${profile.family} cannot turn thinking off`,
        })
        return { thinkingBudget: control.min }
      }
      const wanted = plainBudget(reasoning!)
      if (wanted === -1) {
        if (control.dynamic === true) return { thinkingBudget: -1, includeThoughts: true }
        return { thinkingBudget: control.max ?? control.min, includeThoughts: true }
      }
      const budget = Math.min(Math.max(wanted, control.min), control.max ?? Infinity)
      if (budget !== wanted && reasoning?.budgetTokens !== undefined) {
        target.adjustments.push({
          field: `${field}.thinkingBudget`,
          change: 'clamped',
          from: wanted,
          to: budget,
          reason: `${profile.family} takes thinking budgets of ${control.min}–${control.max ?? '∞'}`,
        })
      }
      return { thinkingBudget: budget, includeThoughts: true }
    }
    case 'any':
    case 'effort':
    case 'adaptive':
    case 'toggle':
      if (reasoningOff(reasoning)) return { thinkingBudget: 0 }
      return { thinkingBudget: plainBudget(reasoning!), includeThoughts: true }
    default: {
      const unknown: never = control
      throw new Error(`Unknown reasoning control ${JSON.stringify(unknown)}`)
    }
  }
}

/** The budget a request asks for: its own, its effort's, or `-1` (dynamic) for "on, any size". */
function plainBudget(reasoning: NonNullable<ChatRequest['reasoning']>): number {
  if (reasoning.budgetTokens !== undefined) return reasoning.budgetTokens
  const effort = reasoning.effort
  return effort === undefined || effort === 'none' ? -1 : budgetByEffort[effort]
}
