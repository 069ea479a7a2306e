import { unknownModelProfile, type ModelProfile } from './profile'

/**
 * One change the gateway made to a translated request so that the target model accepts it. It
 * reaches the operator on the request's event (`RequestEvent.adjustments`), so that nothing is
 * changed silently and no request fails with a 400 the operator cannot explain.
 *
 * @example
 * { field: 'thinking.budget_tokens', change: 'clamped', from: 31999, to: 24576,
 *   reason: 'gemini-2.5-flash takes thinking budgets of 1–24576' }
 */
export type Adjustment = {
  /** The field as the upstream protocol names it (`max_tokens`, `thinkingConfig.thinkingBudget`). */
  field: string
  change: 'dropped' | 'clamped' | 'mapped' | 'set' | 'renamed' | 'disabled'
  from?: unknown
  to?: unknown
  reason: string
}

/** The model a request is encoded for, and where the encoder notes what it had to change. */
export type ModelTarget = {
  profile: ModelProfile
  adjustments: Adjustment[]
}

/** A target for a model the table does not know: nothing is clamped or dropped for its sake. */
export function lenientTarget(): ModelTarget {
  return { profile: unknownModelProfile, adjustments: [] }
}
