import { modelEntryProfile } from '../models/match-profile'
import type { Route } from '../routing/resolve-route'

/** The gateway-wide output limit settings (`defaultOutputTokens` in the config). */
export type OutputLimitSettings = {
  /** The output limit of a call whose client set none, for a model without a known maximum. */
  defaultOutputTokens: number
}

/**
 * The output side of one call, decided once: the limit an upstream is told when its protocol
 * requires one, and the output tokens the quota holds for the call until it settles.
 */
export type OutputAllowance = {
  /**
   * The output limit for an upstream that requires one (Anthropic's `max_tokens`): the client's
   * own when it set one, else the route's default. Passthrough never adds it to a client's body.
   */
  limit: number
  /** Whether the client set the limit itself. */
  requested: boolean
  /** Output tokens reserved against the key's quota: the same limit, so the two never disagree. */
  reserve: number
}

/**
 * The default output limit of a route: what a call whose client set no limit may produce — the
 * upstream model's own maximum output when its profile (built-in table or the model entry's
 * override) knows it, else the gateway's `defaultOutputTokens`. The one place this is decided, for
 * the translator and the quota alike.
 */
export function defaultOutputLimit(route: Route, settings: OutputLimitSettings): number {
  return modelEntryProfile(route.model).maxOutputTokens ?? settings.defaultOutputTokens
}

/**
 * The one notion of "default output limit", shared by translation and quota: the client's own
 * limit when it set one, else the route's default. Without it a request that names no limit (the
 * usual case for OpenAI and Gemini clients) would reserve nothing for its output, and concurrent
 * requests could overshoot a small quota many times over.
 *
 * @param requested the request's own output limit (`max_completion_tokens`, `max_tokens`,
 *   `maxOutputTokens`), if any
 */
export function outputAllowance(
  requested: number | undefined,
  route: Route,
  settings: OutputLimitSettings,
): OutputAllowance {
  const limit = requested ?? defaultOutputLimit(route, settings)
  return { limit, requested: requested !== undefined, reserve: limit }
}
