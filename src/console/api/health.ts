import type { UpstreamHealth } from '../../failover/upstream-selector'
import { ConsoleError } from '../server/answers'
import { seesEveryKey, type ConsoleRequest } from '../server/context'

/** What `createGatewayWithState`'s `health()` adds: the Redis topology in words. */
type StateTopology = { state?: { redis?: { description: string } } }

/**
 * `GET <mount>/api/health` (admins and viewers): each upstream's state as the gateway's selector
 * keeps it, in words, and the Redis the shared state runs on (single node, cluster with N masters,
 * Sentinel primary) when the gateway has one. Pooled keys appear masked, as `gateway.health()`
 * gives them.
 */
export async function healthCall(call: ConsoleRequest) {
  if (!seesEveryKey(call.user))
    throw new ConsoleError(403, 'Upstream health is for admins and viewers.')
  const now = call.deps.now()
  const upstreams: readonly UpstreamHealth[] & StateTopology = await call.deps.gateway.health()
  const redis = upstreams.state?.redis?.description
  return {
    checkedAt: now,
    ...(redis === undefined ? {} : { redis }),
    upstreams: upstreams.map((upstream) => describe(upstream, now)),
  }
}

function describe(upstream: UpstreamHealth, now: number) {
  const state =
    upstream.circuit === 'closed'
      ? 'healthy'
      : upstream.circuit === 'open'
        ? 'failing'
        : 'recovering'
  return {
    group: upstream.groupId,
    upstream: upstream.upstreamId,
    state,
    summary: summaryOf(upstream, now),
    inFlight: upstream.inFlight,
    maxConcurrent: upstream.maxConcurrent ?? null,
    keys: (upstream.keys ?? []).map((key) => ({
      masked: key.masked,
      status: key.disabled === undefined ? 'in rotation' : `out of rotation: ${key.disabled}`,
    })),
  }
}

function summaryOf(upstream: UpstreamHealth, now: number): string {
  const busy = `${upstream.inFlight} request${upstream.inFlight === 1 ? '' : 's'} in flight`
  if (upstream.circuit === 'closed') return `Healthy: taking requests (${busy}).`
  const why = upstream.reason === undefined ? '' : ` after ${upstream.reason}`
  if (upstream.circuit === 'half-open') {
    return `Recovering${why}: one trial request decides whether it takes traffic again.`
  }
  const seconds =
    upstream.openUntil === undefined
      ? undefined
      : Math.max(0, Math.ceil((upstream.openUntil - now) / 1000))
  return `Failing${why}: skipped${seconds === undefined ? '' : ` for ${seconds} more second${seconds === 1 ? '' : 's'}`}, then tried again.`
}
