import type { ChatRequest } from '../../canonical/types'
import { dropped } from '../../models/fit-request'
import type { ModelTarget } from '../../models/model-target'
import type { ReasoningEffort } from '../../models/profile'
import {
  lowestEffort,
  nearestEffort,
  reasoningOff,
  reasoningOn,
  wantedEffort,
} from '../../models/reasoning-fit'

/** Anthropic's smallest `budget_tokens`. */
const minimumBudget = 1024

/** Thinking budgets for reasoning efforts (RSN-01, pinned; `minimal` rounds up to the minimum). */
const budgetByEffort: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1024,
  low: 1024,
  medium: 2048,
  high: 4096,
  xhigh: 8192,
  max: 16384,
}

/** The thinking part of a messages body. */
export type AnthropicThinking = {
  /** `thinking`: `{type: "enabled", budget_tokens}`, `{type: "adaptive"}` or `{type: "disabled"}`. */
  thinking?:
    { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' } | { type: 'disabled' }
  /** `output_config.effort`, for adaptive models. */
  effort?: ReasoningEffort
  /** `max_tokens`, grown by a thinking budget and capped at the model's maximum. */
  maxTokens: number
  /** Whether the model may think on this request (sent on, or on by the model's default). */
  mayThink: boolean
  /** Whether thinking can be turned off for this model. */
  canDisable: boolean
}

/**
 * Canonical reasoning → Anthropic thinking, fitted to the model (RSN-01, GEN-01):
 *
 * - budget models get `{type: "enabled", budget_tokens}`: the client's budget, or the effort's
 *   (minimal/low 1024, medium 2048, high 4096, xhigh 8192, max 16384), kept within the model's
 *   range; `max_tokens` grows by the budget, up to the model's maximum, and the budget stays
 *   below it (a model whose maximum leaves no room for 1024 thinks not at all);
 * - adaptive models get `{type: "adaptive"}` with `output_config.effort`, the nearest effort
 *   they accept (a budget is an effort first: ≤ 1024 low, ≤ 8192 medium, else high);
 * - "off" is `{type: "disabled"}` where the model allows it, else the lowest effort or budget;
 * - models without thinking get nothing.
 *
 * @param maxTokens the output limit before thinking: the client's (capped) or the default.
 */
export function encodeAnthropicThinking(
  reasoning: ChatRequest['reasoning'],
  target: ModelTarget,
  maxTokens: number,
): AnthropicThinking {
  const { profile } = target
  const control = profile.reasoning
  const family = profile.family
  switch (control.kind) {
    case 'none':
    case 'always':
    case 'effort':
    case 'toggle':
      // The last three are other protocols' controls; a model Anthropic serves that names them
      // is unknown to the table, so the plain mapping below applies.
      if (control.kind === 'none') {
        if (reasoningOn(reasoning))
          dropped(target, 'thinking', summary(reasoning), `${family} does not think`)
        return { maxTokens, mayThink: false, canDisable: true }
      }
      return budgetThinking(reasoning, target, maxTokens, { min: minimumBudget, canDisable: true })
    case 'any':
    case 'level':
      return budgetThinking(reasoning, target, maxTokens, { min: minimumBudget, canDisable: true })
    case 'budget':
      return budgetThinking(reasoning, target, maxTokens, {
        min: Math.max(control.min, minimumBudget),
        max: control.max,
        canDisable: control.canDisable,
      })
    case 'adaptive': {
      const base = { maxTokens, canDisable: control.canDisable }
      if (reasoningOff(reasoning)) {
        if (control.canDisable) return { ...base, thinking: { type: 'disabled' }, mayThink: false }
        const effort = lowestEffort(control.efforts)
        target.adjustments.push({
          field: 'thinking',
          change: 'mapped',
          from: 'disabled',
          to: { type: 'adaptive', effort },
          reason: `${family} cannot turn thinking off; the lowest effort is sent instead`,
        })
        return { ...base, thinking: { type: 'adaptive' }, effort, mayThink: true }
      }
      // Not asked: the model's default holds, which is thinking on for the newest models.
      if (!reasoningOn(reasoning)) return { ...base, mayThink: true }
      const wanted = wantedEffort(reasoning)
      const effort = wanted === undefined ? undefined : nearestEffort(wanted, control.efforts)
      if (reasoning.budgetTokens !== undefined || (wanted !== undefined && effort !== wanted)) {
        target.adjustments.push({
          field: 'thinking',
          change: 'mapped',
          from: summary(reasoning),
          to: { type: 'adaptive', ...(effort === undefined ? {} : { effort }) },
          reason: `${family} takes adaptive thinking with efforts ${control.efforts.join(', ')}`,
        })
      }
      return {
        ...base,
        thinking: { type: 'adaptive' },
        ...(effort === undefined ? {} : { effort }),
        mayThink: true,
      }
    }
    default: {
      const unknown: never = control
      throw new Error(`Unknown reasoning control ${JSON.stringify(unknown)}`)
    }
  }
}

function budgetThinking(
  reasoning: ChatRequest['reasoning'],
  target: ModelTarget,
  maxTokens: number,
  range: { min: number; max?: number | undefined; canDisable: boolean },
): AnthropicThinking {
  const family = target.profile.family
  const base = { maxTokens, canDisable: range.canDisable }
  if (reasoning === undefined || (!reasoningOn(reasoning) && !reasoningOff(reasoning)))
    return { ...base, mayThink: false }
  let wanted: number
  if (reasoningOff(reasoning)) {
    if (range.canDisable) return { ...base, thinking: { type: 'disabled' }, mayThink: false }
    wanted = range.min
    target.adjustments.push({
      field: 'thinking',
      change: 'mapped',
      from: 'disabled',
      to: { budget_tokens: range.min },
      reason: `${family} cannot turn thinking off; the smallest budget is sent instead`,
    })
  } else {
    const effort = reasoning.effort
    wanted =
      reasoning.budgetTokens ??
      (effort === undefined || effort === 'none' ? budgetByEffort.medium : budgetByEffort[effort])
  }
  let budget = Math.max(wanted, range.min)
  if (range.max !== undefined) budget = Math.min(budget, range.max)
  const modelMax = target.profile.maxOutputTokens ?? Infinity
  const total = Math.min(maxTokens + budget, modelMax)
  // Anthropic requires budget_tokens < max_tokens.
  budget = Math.min(budget, total - 1)
  if (budget < range.min) {
    dropped(
      target,
      'thinking',
      summary(reasoning),
      `${family} allows ${modelMax} output tokens, too few for a thinking budget of ${range.min}`,
    )
    return { ...base, mayThink: false }
  }
  if (reasoning.budgetTokens !== undefined && budget !== reasoning.budgetTokens) {
    target.adjustments.push({
      field: 'thinking.budget_tokens',
      change: 'clamped',
      from: reasoning.budgetTokens,
      to: budget,
      reason: `${family} takes thinking budgets of ${range.min}–${Math.min(range.max ?? Infinity, total - 1)}`,
    })
  }
  return {
    thinking: { type: 'enabled', budget_tokens: budget },
    maxTokens: total,
    mayThink: true,
    canDisable: range.canDisable,
  }
}

/** The client's reasoning request, for an adjustment's `from`. */
function summary(reasoning: ChatRequest['reasoning']): unknown {
  if (reasoning?.budgetTokens !== undefined) return { budget_tokens: reasoning.budgetTokens }
  if (reasoning?.effort !== undefined) return reasoning.effort
  return reasoning?.enabled === true ? 'enabled' : undefined
}
