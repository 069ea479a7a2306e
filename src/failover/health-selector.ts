import type { Group, GroupRegistry } from '../routing/group-registry'
import { chooseCandidate } from './balancing'
import type { CircuitStore } from './circuit-store'
import { hashText } from './rendezvous'
import type {
  AttemptVerdict,
  Selection,
  SelectContext,
  Unavailable,
  UpstreamHealth,
  UpstreamSelector,
} from './upstream-selector'
import { UpstreamStates, type UpstreamState } from './upstream-state'

/** Where the selector's lines go: a circuit opening, a key leaving rotation (default `console`). */
export type SelectorLogger = { warn(message: string): void }

/** Options of `createHealthSelector`. */
export type HealthSelectorOptions = {
  /** The groups whose upstreams `health()` lists. */
  registry: GroupRegistry
  /** Where open circuits are shared with other selectors (default: none, each breaker alone). */
  circuitStore?: CircuitStore | undefined
  now?: (() => number) | undefined
  /** A number in [0, 1), as `Math.random` returns; injected so that tests can pin the choice. */
  random?: (() => number) | undefined
  logger?: SelectorLogger | undefined
}

/** Why no upstream could be picked, gathered while looking. */
type Shortfall = {
  untried: number
  circuits: number
  concurrency: number
  keys: number
  soonest: number
}

/**
 * The gateway's default upstream selector: it skips upstreams whose circuit is open (sharing
 * openings through the circuit store), lets exactly one probe through a circuit whose opening has
 * passed, respects each upstream's `maxConcurrent`, rotates pooled keys and takes refused ones
 * out of rotation, and balances what is left by weight or by calls in flight — or, with session
 * affinity, keeps each session on its rendezvous choice while that upstream is fit.
 *
 * `select` is synchronous: every read is from memory. On a group of one upstream with no limits
 * it allocates nothing (the selection object is shared by all such attempts).
 */
export function createHealthSelector(
  options: HealthSelectorOptions,
): UpstreamSelector & { close(): Promise<void> } {
  const now = options.now ?? Date.now
  const random = options.random ?? Math.random
  // Without a store, openings live in the breakers alone: a store only this selector wrote would
  // tell it nothing its breakers do not know, and reading it would cost every pick a lookup.
  const store = options.circuitStore
  const logger = options.logger ?? console
  const states = new UpstreamStates(random)

  /** Whether this upstream may take an attempt now; notes why not in `shortfall`. */
  function fit(state: UpstreamState, at: number, shortfall: Shortfall): boolean {
    const breaker = state.breaker
    const shared = store?.openUntil(state.circuitId, at)
    if (shared !== undefined && shared > at && shared > breaker.openUntil) breaker.adopt(shared)
    if (breaker.availability(at) === 'blocked') {
      shortfall.circuits += 1
      const wait = breaker.retryAfterMs(at)
      if (wait !== undefined) shortfall.soonest = Math.min(shortfall.soonest, wait)
      return false
    }
    if (state.full) {
      shortfall.concurrency += 1
      return false
    }
    if (state.pool !== undefined && !state.pool.hasKey(at)) {
      shortfall.keys += 1
      shortfall.soonest = Math.min(shortfall.soonest, state.pool.soonestReturnMs(at))
      return false
    }
    return true
  }

  function take(state: UpstreamState, at: number, sessionHash: number | undefined): Selection {
    const probe = state.breaker.availability(at) === 'probe'
    if (probe) state.breaker.takeProbe()
    state.inFlight += 1
    if (state.pool === undefined) {
      if (!probe) return (state.plain ??= selectionOf(state, undefined, false))
      return selectionOf(state, undefined, true)
    }
    const index = state.pool.take(at, sessionHash)!
    return selectionOf(state, index, probe)
  }

  function selectionOf(state: UpstreamState, index: number | undefined, probe: boolean): Selection {
    const release = () => {
      state.inFlight -= 1
      if (index !== undefined) state.pool!.release(index)
    }
    return {
      upstream: state.upstream,
      credential: index === undefined ? undefined : { index, masked: state.pool!.masked[index]! },
      finish(verdict: AttemptVerdict, until?: Promise<unknown>) {
        judge(state, index, probe, verdict)
        if (until === undefined) release()
        else void until.then(release, release)
      },
    }
  }

  function judge(
    state: UpstreamState,
    index: number | undefined,
    probe: boolean,
    verdict: AttemptVerdict,
  ): void {
    const at = now()
    const breaker = state.breaker
    switch (verdict.kind) {
      case 'ok':
        breaker.succeeded(at, probe)
        return
      case 'neutral':
        breaker.releaseProbe(probe)
        return
      case 'failed': {
        const status = verdict.status
        const immediate = status === 429 || status === 529
        if (breaker.failed(at, { immediate, retryAfterMs: verdict.retryAfterMs }, probe)) {
          store?.open(state.circuitId, breaker.openUntil - at, at)
          const seconds = ((breaker.openUntil - at) / 1000).toFixed(1)
          logger.warn(
            `[model-gateway] upstream ${state.circuitId}: circuit open for ${seconds} s (${breaker.reason}${status === undefined ? '' : `, last HTTP ${status}`}).`,
          )
        }
        return
      }
      case 'rejected-key':
        if (index === undefined) {
          // One credential: the upstream itself is unusable until it is fixed; its circuit
          // opens, and reopens ever longer while probes keep being refused.
          if (breaker.failed(at, { immediate: true }, probe)) {
            store?.open(state.circuitId, breaker.openUntil - at, at)
            logger.warn(
              `[model-gateway] upstream ${state.circuitId}: circuit open, its key was ${verdict.reason}.`,
            )
          }
          return
        }
        breaker.releaseProbe(probe)
        logger.warn(
          `[model-gateway] upstream ${state.circuitId}: ${state.pool!.disable(index, verdict.status, verdict.reason, at)}.`,
        )
        return
      default: {
        const unknown: never = verdict
        throw new Error(`Unknown verdict ${String(unknown)}`)
      }
    }
  }

  // Reused by every pick: `select` is synchronous, so one pick never sees another's.
  const shortfall: Shortfall = { untried: 0, circuits: 0, concurrency: 0, keys: 0, soonest: 0 }

  function select(group: Group, context: SelectContext): Selection | Unavailable {
    const { policy, states: upstreams, fit: fitness } = states.of(group)
    const at = now()
    const tried = context.tried
    // The common case: one upstream, a first attempt, nothing to count or rotate, circuit closed.
    if (upstreams.length === 1 && tried.size === 0 && context.retrySame === undefined) {
      const only = upstreams[0]!
      if (
        only.pool === undefined &&
        only.maxConcurrent === undefined &&
        only.breaker.state === 'closed' &&
        (store === undefined || (store.openUntil(only.circuitId, at) ?? 0) <= at)
      ) {
        only.inFlight += 1
        return (only.plain ??= selectionOf(only, undefined, false))
      }
    }
    shortfall.untried = 0
    shortfall.circuits = 0
    shortfall.concurrency = 0
    shortfall.keys = 0
    shortfall.soonest = Infinity
    const sessionHash =
      policy.affinity !== undefined && context.sessionHint !== undefined
        ? hashText(context.sessionHint)
        : undefined
    if (context.retrySame !== undefined) {
      for (const state of upstreams) {
        if (state.upstream.id === context.retrySame && fit(state, at, shortfall)) {
          return take(state, at, sessionHash)
        }
      }
    }
    for (let index = 0; index < upstreams.length; index += 1) {
      const state = upstreams[index]!
      const untried = tried.size === 0 || !tried.has(state.upstream.id)
      if (untried) shortfall.untried += 1
      fitness[index] = untried && fit(state, at, shortfall) ? 1 : 0
    }
    const chosen = chooseCandidate(upstreams, fitness, policy.balancing, sessionHash, random)
    if (chosen >= 0) return take(upstreams[chosen]!, at, sessionHash)
    return unavailable(shortfall)
  }

  return {
    select,
    async health() {
      await store?.sync?.()
      const at = now()
      return (await options.registry.list()).flatMap((group) =>
        states.of(group).states.map((state): UpstreamHealth => {
          fit(state, at, shortfall)
          const breaker = state.breaker
          const circuit =
            breaker.state === 'open' && breaker.openUntil <= at ? 'half-open' : breaker.state
          return {
            groupId: group.id,
            upstreamId: state.upstream.id,
            circuit,
            openUntil: breaker.state === 'closed' ? undefined : breaker.openUntil,
            reason: breaker.reason,
            inFlight: state.inFlight,
            maxConcurrent: state.maxConcurrent,
            keys: state.pool?.health(at),
          }
        }),
      )
    },
    async close() {
      await store?.close?.()
    },
  }
}

/** The answer when nothing may be tried: the likeliest reason, and the soonest wait known. */
function unavailable(shortfall: Shortfall): Unavailable {
  const retryAfterMs = Number.isFinite(shortfall.soonest) ? shortfall.soonest : undefined
  if (shortfall.untried === 0) return { unavailable: true, retryAfterMs, reason: 'exhausted' }
  const reason =
    shortfall.concurrency > 0 ? 'concurrency' : shortfall.circuits > 0 ? 'circuits-open' : 'no-keys'
  return { unavailable: true, retryAfterMs, reason }
}
