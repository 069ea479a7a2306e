import type { CircuitBreaker } from './circuit-breaker'
import type { UpstreamHealth } from './upstream-selector'
import type { UpstreamState } from './upstream-state'

/** A breaker's state as `health()` reports it: an opening that has passed is half-open. */
function circuitOf(breaker: CircuitBreaker, at: number): UpstreamHealth['circuit'] {
  return breaker.state === 'open' && breaker.openUntil <= at ? 'half-open' : breaker.state
}

/** One upstream's entry in `health()`: its whole circuit, the models resting on it, its load and keys. */
export function upstreamHealthOf(
  groupId: string,
  state: UpstreamState,
  at: number,
): UpstreamHealth {
  const breaker = state.breaker
  const health: UpstreamHealth = {
    groupId,
    upstreamId: state.upstream.id,
    circuit: circuitOf(breaker, at),
    openUntil: breaker.state === 'closed' ? undefined : breaker.openUntil,
    reason: breaker.reason,
    inFlight: state.inFlight,
    maxConcurrent: state.maxConcurrent,
    keys: state.pool?.health(at),
  }
  const models: NonNullable<UpstreamHealth['models']>[number][] = []
  for (const pair of state.pairs.values()) {
    const circuit = circuitOf(pair.breaker, at)
    if (circuit === 'closed') continue
    models.push({
      model: pair.model,
      circuit,
      openUntil: pair.breaker.openUntil,
      reason: pair.breaker.reason,
    })
  }
  if (models.length > 0) health.models = models
  return health
}

/**
 * What rests, in words for a refusal: `upstream "a" of group "g" rests for model "m" (rate
 * limited or overloaded (retry-after)), 1.0 s left`.
 */
export function restingDetail(
  state: UpstreamState,
  groupId: string,
  model: string | undefined,
  at: number,
): string {
  const whole = state.breaker
  const pair = model === undefined ? undefined : state.pairs.get(model)
  const wholeRests = whole.availability(at) === 'blocked'
  const breaker = wholeRests || pair === undefined ? whole : pair.breaker
  const what = `upstream "${state.upstream.id}" of group "${groupId}" rests${wholeRests ? '' : ` for model "${model ?? ''}"`}`
  const left = breaker.retryAfterMs(at)
  const reason = breaker.reason === undefined ? '' : ` (${breaker.reason})`
  return `${what}${reason}${left === undefined ? '' : `, ${(left / 1000).toFixed(1)} s left`}`
}
