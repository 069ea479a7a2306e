/**
 * When an upstream's circuit opens and for how long. Every field has a documented default
 * (`defaultCircuitPolicy`); a group's `circuitBreaker` config overrides any of them.
 */
export type CircuitPolicy = {
  /**
   * False when the group's config says `circuitBreaker: false`: circuits never open, so every
   * upstream stays in rotation whatever it answers (key pools still take refused keys out).
   */
  enabled: boolean
  /** Failed attempts in a row that open the circuit (default 5, Envoy's `consecutive_5xx`). */
  consecutiveFailures: number
  /**
   * Share of failed attempts within `windowMs` that opens the circuit, once the window holds at
   * least `minimumCalls` attempts (default 0.5, LiteLLM's threshold; 1 turns the rule off).
   */
  failureRatio: number
  /** Attempts the window must hold before `failureRatio` applies (default 10). */
  minimumCalls: number
  /** The window of the failure ratio (default 60000 ms). */
  windowMs: number
  /**
   * How long a circuit stays open when the upstream did not say (no `retry-after`): the first
   * opening lasts this long, each reopening after a failed probe twice as long (default 10000 ms).
   */
  cooldownMs: number
  /** The longest opening, doubled or told by `retry-after` (default 300000 ms, Envoy's cap). */
  maxCooldownMs: number
  /** ± share of randomness on computed cooldowns, against herds of probes (default 0.2). */
  jitter: number
  /**
   * What a request gets when every candidate for its model (the group's upstreams, then its
   * fallbacks') is resting: `try-soonest` (the default) sends it to the one whose rest ends first,
   * as Envoy's panic routing does, so that the client gets that upstream's own answer; `refuse`
   * answers at once with 503 (529 on Anthropic routes) and `retry-after`.
   */
  whenAllResting: 'try-soonest' | 'refuse'
}

/** The defaults of `CircuitPolicy` (docs/routing-and-failover.md › Upstream health and selection). */
export const defaultCircuitPolicy: Readonly<CircuitPolicy> = Object.freeze({
  enabled: true,
  consecutiveFailures: 5,
  failureRatio: 0.5,
  minimumCalls: 10,
  windowMs: 60_000,
  cooldownMs: 10_000,
  maxCooldownMs: 300_000,
  jitter: 0.2,
  whenAllResting: 'try-soonest',
})

const disabledCircuitPolicy: Readonly<CircuitPolicy> = Object.freeze({
  ...defaultCircuitPolicy,
  enabled: false,
})

/**
 * A policy with the defaults filled in for the fields a group's config leaves out; `false` turns
 * circuit breaking off.
 */
export function resolveCircuitPolicy(
  overrides: Partial<CircuitPolicy> | false | undefined,
): Readonly<CircuitPolicy> {
  if (overrides === undefined) return defaultCircuitPolicy
  if (overrides === false) return disabledCircuitPolicy
  // Fields given as `undefined` keep their defaults.
  const defined = Object.fromEntries(
    Object.entries(overrides).filter(([, value]) => value !== undefined),
  ) as Partial<CircuitPolicy>
  return Object.freeze({ ...defaultCircuitPolicy, ...defined })
}

/**
 * The cooldown of an opening the upstream gave no time for: `cooldownMs × 2^(openings − 1)`,
 * capped, then spread by ± `jitter` (the cap holds after the spread).
 */
export function computedCooldownMs(
  policy: Readonly<CircuitPolicy>,
  openings: number,
  random: () => number,
): number {
  const exponent = Math.min(Math.max(openings - 1, 0), 30)
  const base = Math.min(policy.cooldownMs * 2 ** exponent, policy.maxCooldownMs)
  const spread = 1 + policy.jitter * (2 * random() - 1)
  return Math.max(0, Math.min(Math.round(base * spread), policy.maxCooldownMs))
}
