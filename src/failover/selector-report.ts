import type { CircuitBreaker } from './circuit-breaker'
import type { Unavailable, UpstreamHealth } from './upstream-selector'
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
  groupCalls: number,
): UpstreamHealth {
  const recentCalls = state.traffic.recent(at)
  const breaker = state.breaker
  const health: UpstreamHealth = {
    groupId,
    upstreamId: state.upstream.id,
    circuit: circuitOf(breaker, at),
    openUntil: breaker.state === 'closed' ? undefined : breaker.openUntil,
    reason: breaker.reason,
    inFlight: state.inFlight,
    tier: state.priority,
    share: groupCalls === 0 ? 0 : recentCalls / groupCalls,
    recentCalls,
    maxConcurrent: state.maxConcurrent,
    keys: state.pool?.health(at),
  }
  const latency = latencyReport(state)
  if (latency.length > 0) health.latency = latency
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
 * The `health()` entries of one group's upstreams, each brought up to date by `sync` first, with
 * each one's share of the calls this instance sent the group lately.
 */
export function groupHealth(
  groupId: string,
  upstreams: readonly UpstreamState[],
  at: number,
  sync: (state: UpstreamState) => void,
): UpstreamHealth[] {
  let calls = 0
  for (const state of upstreams) calls += state.traffic.recent(at)
  return upstreams.map((state) => {
    sync(state)
    return upstreamHealthOf(groupId, state, at, calls)
  })
}

/** The upstream's latency measures, per upstream model that has any sample. */
function latencyReport(state: UpstreamState): NonNullable<UpstreamHealth['latency']>[number][] {
  const report: NonNullable<UpstreamHealth['latency']>[number][] = []
  for (const [model, pair] of state.latencies()) {
    if (pair.stream.samples === 0 && pair.json.samples === 0) continue
    report.push({
      model,
      streamMs: pair.stream.samples === 0 ? undefined : Math.round(pair.stream.value),
      streamSamples: pair.stream.samples,
      jsonMsPerToken: pair.json.samples === 0 ? undefined : Math.round(pair.json.value * 100) / 100,
      jsonSamples: pair.json.samples,
    })
  }
  return report
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

/** Why no upstream could be picked, gathered while looking. */
export type Shortfall = {
  untried: number
  circuits: number
  concurrency: number
  keys: number
  soonest: number
  /** The resting candidate whose rest ends first (an index into the group's upstreams), or -1. */
  restingIndex: number
  restingEnd: number
}

/** The answer when nothing may be tried: the likeliest reason, and the soonest wait known. */
export function unavailable(shortfall: Shortfall, detail: string | undefined): Unavailable {
  const retryAfterMs = Number.isFinite(shortfall.soonest) ? shortfall.soonest : undefined
  if (shortfall.untried === 0)
    return { unavailable: true, retryAfterMs, reason: 'exhausted', detail }
  const reason =
    shortfall.concurrency > 0 ? 'concurrency' : shortfall.circuits > 0 ? 'circuits-open' : 'no-keys'
  return { unavailable: true, retryAfterMs, reason, detail }
}
