import type { Group, GroupRegistry } from '../routing/group-registry'
import { chooseCandidate } from './balancing'
import type { CircuitStore } from './circuit-store'
import {
  judgeAttempt,
  pairProbe,
  syncWithStore,
  wholeProbe,
  type JudgedAttempt,
  type SelectorLogger,
} from './circuit-judge'
import { hashText } from './rendezvous'
import type {
  AttemptVerdict,
  Selection,
  SelectContext,
  Unavailable,
  UpstreamHealth,
  UpstreamSelector,
} from './upstream-selector'
import { restingDetail, upstreamHealthOf } from './selector-report'
import { UpstreamStates, type PairCircuit, type UpstreamState } from './upstream-state'

export type { SelectorLogger } from './circuit-judge'

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
  /** The resting candidate whose rest ends first (an index into the group's upstreams), or -1. */
  restingIndex: number
  restingEnd: number
}

/** Whether an upstream may take an attempt: yes, only while resting, or no. */
const fitNow = 0
const restingNow = 1
const unfit = 2

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

  /** Whether this upstream may take an attempt for `pair`'s model now; notes why not in `shortfall`. */
  function fit(
    state: UpstreamState,
    pair: PairCircuit | undefined,
    index: number,
    at: number,
    shortfall: Shortfall,
  ): number {
    const whole = state.breaker
    syncWithStore(store, whole, state.circuitId, at)
    let blocked = whole.availability(at) === 'blocked'
    if (pair !== undefined) {
      syncWithStore(store, pair.breaker, pair.id, at)
      if (pair.breaker.availability(at) === 'blocked') blocked = true
    }
    if (state.full) {
      shortfall.concurrency += 1
      return unfit
    }
    if (state.pool !== undefined && !state.pool.hasKey(at)) {
      shortfall.keys += 1
      shortfall.soonest = Math.min(shortfall.soonest, state.pool.soonestReturnMs(at))
      return unfit
    }
    if (!blocked) return fitNow
    shortfall.circuits += 1
    const wait = Math.max(
      whole.retryAfterMs(at) ?? 0,
      pair === undefined ? 0 : (pair.breaker.retryAfterMs(at) ?? 0),
    )
    shortfall.soonest = Math.min(shortfall.soonest, wait)
    if (wait < shortfall.restingEnd) {
      shortfall.restingEnd = wait
      shortfall.restingIndex = index
    }
    return restingNow
  }

  function take(
    state: UpstreamState,
    pair: PairCircuit | undefined,
    at: number,
    sessionHash: number | undefined,
    resting: boolean,
  ): Selection {
    let probes = 0
    if (!resting) {
      if (state.breaker.availability(at) === 'probe') {
        state.breaker.takeProbe()
        probes |= wholeProbe
      }
      if (pair !== undefined && pair.breaker.availability(at) === 'probe') {
        pair.breaker.takeProbe()
        probes |= pairProbe
      }
    }
    state.inFlight += 1
    if (state.pool === undefined && probes === 0 && !resting) {
      if (pair === undefined) return (state.plain ??= selectionOf(state, pair, undefined, 0, false))
      return (pair.plain ??= selectionOf(state, pair, undefined, 0, false))
    }
    const index = state.pool?.take(at, sessionHash)
    return selectionOf(state, pair, index, probes, resting)
  }

  function selectionOf(
    state: UpstreamState,
    pair: PairCircuit | undefined,
    index: number | undefined,
    probes: number,
    resting: boolean,
  ): Selection {
    const attempt: JudgedAttempt = { state, pair, index, probes, resting }
    const release = () => {
      state.inFlight -= 1
      if (index !== undefined) state.pool!.release(index)
    }
    const selection: Selection = {
      upstream: state.upstream,
      credential: index === undefined ? undefined : { index, masked: state.pool!.masked[index]! },
      finish(verdict: AttemptVerdict, until?: Promise<unknown>) {
        judgeAttempt(attempt, verdict, now(), store, logger)
        if (until === undefined) release()
        else void until.then(release, release)
      },
    }
    if (resting) selection.resting = true
    return selection
  }

  // Reused by every pick: `select` is synchronous, so one pick never sees another's.
  const shortfall: Shortfall = {
    untried: 0,
    circuits: 0,
    concurrency: 0,
    keys: 0,
    soonest: 0,
    restingIndex: -1,
    restingEnd: Infinity,
  }

  function select(group: Group, context: SelectContext): Selection | Unavailable {
    const { policy, states: upstreams, fit: fitness } = states.of(group)
    const at = now()
    const tried = context.tried
    const model = context.model
    // The common case: one upstream, a first attempt, nothing to count or rotate, circuits closed.
    if (upstreams.length === 1 && tried.size === 0 && context.retrySame === undefined) {
      const only = upstreams[0]!
      const pair = model === undefined ? undefined : only.pairOf(model)
      if (
        only.pool === undefined &&
        only.maxConcurrent === undefined &&
        only.breaker.state === 'closed' &&
        (pair === undefined || pair.breaker.state === 'closed') &&
        (store === undefined ||
          ((store.openUntil(only.circuitId, at) ?? 0) <= at &&
            (pair === undefined || (store.openUntil(pair.id, at) ?? 0) <= at)))
      ) {
        only.inFlight += 1
        if (pair === undefined) return (only.plain ??= selectionOf(only, pair, undefined, 0, false))
        return (pair.plain ??= selectionOf(only, pair, undefined, 0, false))
      }
    }
    shortfall.untried = 0
    shortfall.circuits = 0
    shortfall.concurrency = 0
    shortfall.keys = 0
    shortfall.soonest = Infinity
    shortfall.restingIndex = -1
    shortfall.restingEnd = Infinity
    const resting = context.resting === true
    const sessionHash =
      policy.affinity !== undefined && context.sessionHint !== undefined
        ? hashText(context.sessionHint)
        : undefined
    if (context.retrySame !== undefined) {
      for (let index = 0; index < upstreams.length; index += 1) {
        const state = upstreams[index]!
        if (state.upstream.id !== context.retrySame) continue
        const pair = model === undefined ? undefined : state.pairOf(model)
        const fitness = fit(state, pair, index, at, shortfall)
        if (fitness === fitNow || (fitness === restingNow && resting)) {
          return take(state, pair, at, sessionHash, fitness === restingNow)
        }
      }
    }
    for (let index = 0; index < upstreams.length; index += 1) {
      const state = upstreams[index]!
      const untried = tried.size === 0 || !tried.has(state.upstream.id)
      if (untried) shortfall.untried += 1
      fitness[index] =
        untried &&
        fit(state, model === undefined ? undefined : state.pairOf(model), index, at, shortfall) ===
          fitNow
          ? 1
          : 0
    }
    const chosen = chooseCandidate(upstreams, fitness, policy.balancing, sessionHash, random)
    if (chosen >= 0) {
      const state = upstreams[chosen]!
      return take(
        state,
        model === undefined ? undefined : state.pairOf(model),
        at,
        sessionHash,
        false,
      )
    }
    if (resting && shortfall.restingIndex >= 0) {
      // Every untried candidate rests: the one whose rest ends first takes the attempt anyway.
      const state = upstreams[shortfall.restingIndex]!
      return take(
        state,
        model === undefined ? undefined : state.pairOf(model),
        at,
        sessionHash,
        true,
      )
    }
    return unavailable(
      shortfall,
      shortfall.restingIndex >= 0
        ? restingDetail(upstreams[shortfall.restingIndex]!, group.id, model, at)
        : undefined,
    )
  }

  return {
    select,
    async health() {
      await store?.sync?.()
      const at = now()
      return (await options.registry.list()).flatMap((group) =>
        states.of(group).states.map((state): UpstreamHealth => {
          syncWithStore(store, state.breaker, state.circuitId, at)
          for (const pair of state.pairs.values()) syncWithStore(store, pair.breaker, pair.id, at)
          return upstreamHealthOf(group.id, state, at)
        }),
      )
    },
    async close() {
      await store?.close?.()
    },
  }
}

/** The answer when nothing may be tried: the likeliest reason, and the soonest wait known. */
function unavailable(shortfall: Shortfall, detail: string | undefined): Unavailable {
  const retryAfterMs = Number.isFinite(shortfall.soonest) ? shortfall.soonest : undefined
  if (shortfall.untried === 0)
    return { unavailable: true, retryAfterMs, reason: 'exhausted', detail }
  const reason =
    shortfall.concurrency > 0 ? 'concurrency' : shortfall.circuits > 0 ? 'circuits-open' : 'no-keys'
  return { unavailable: true, retryAfterMs, reason, detail }
}
