import type { ChatRequest } from '../canonical/types'
import type { ReasoningEffort, ThinkingLevel } from './profile'

type Reasoning = NonNullable<ChatRequest['reasoning']>

/** Efforts in increasing order; distances on this ladder decide the nearest accepted value. */
const ladder: readonly ReasoningEffort[] = [
  'none',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
  'max',
]

/** True when the request turns reasoning off (`effort: "none"`, a zero budget). */
export function reasoningOff(reasoning: ChatRequest['reasoning']): boolean {
  return reasoning?.effort === 'none'
}

/** True when the request asks for reasoning in any form. */
export function reasoningOn(reasoning: ChatRequest['reasoning']): reasoning is Reasoning {
  if (reasoning === undefined || reasoning.effort === 'none') return false
  return (
    reasoning.effort !== undefined ||
    reasoning.budgetTokens !== undefined ||
    reasoning.enabled === true
  )
}

/**
 * A thinking budget as an effort: ≤ 1024 low, ≤ 8192 medium, else high. Claude
 * Code's 31,999 is `high`, never the costlier `xhigh`.
 */
export function effortOfBudget(budget: number): 'low' | 'medium' | 'high' {
  return budget <= 1024 ? 'low' : budget <= 8192 ? 'medium' : 'high'
}

/** The effort a request asks for: its own, else its budget's; `undefined` for "on, any size". */
export function wantedEffort(reasoning: Reasoning): ReasoningEffort | undefined {
  if (reasoning.effort !== undefined) return reasoning.effort
  return reasoning.budgetTokens === undefined ? undefined : effortOfBudget(reasoning.budgetTokens)
}

/**
 * The accepted effort nearest to the wanted one on the ladder; a tie goes to the higher, so a
 * request is never given less thinking than the nearest lower step would give. `none` is only
 * returned when it was wanted and is accepted.
 */
export function nearestEffort(
  wanted: ReasoningEffort,
  accepted: readonly ReasoningEffort[],
): ReasoningEffort | undefined {
  if (accepted.includes(wanted)) return wanted
  const candidates = accepted.filter((effort) => effort !== 'none')
  let best: ReasoningEffort | undefined
  let bestDistance = Infinity
  for (const effort of candidates) {
    const distance = Math.abs(ladder.indexOf(effort) - ladder.indexOf(wanted))
    if (
      distance < bestDistance ||
      (distance === bestDistance && ladder.indexOf(effort) > ladder.indexOf(best!))
    ) {
      best = effort
      bestDistance = distance
    }
  }
  return best
}

/** The lowest accepted effort that still reasons. */
export function lowestEffort(accepted: readonly ReasoningEffort[]): ReasoningEffort | undefined {
  return [...accepted]
    .filter((effort) => effort !== 'none')
    .sort((left, right) => ladder.indexOf(left) - ladder.indexOf(right))[0]
}

/** The accepted Gemini 3 level nearest to an effort (`xhigh` and `max` are `high`). */
export function nearestLevel(
  wanted: ReasoningEffort,
  levels: readonly ThinkingLevel[],
): ThinkingLevel | undefined {
  const capped: ReasoningEffort = wanted === 'xhigh' || wanted === 'max' ? 'high' : wanted
  return nearestEffort(capped === 'none' ? 'minimal' : capped, levels) as ThinkingLevel | undefined
}
