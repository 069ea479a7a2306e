import type { Group, GroupRegistry } from '../routing/group-registry'
import type { AttemptChoice } from '../usage/upstream-attempt'
import { chooseUpstream, choiceOf, newPick } from './choose-upstream'
import type { LatencyMeasure } from './latency-measure'
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
import type { AttemptVerdict, Selection, SelectContext } from './upstream-selector'
import type { Unavailable, UpstreamSelector } from './upstream-selector'
import { groupHealth, restingDetail, unavailable, type Shortfall } from './selector-report'
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

/** Whether an upstream may take an attempt: yes, only while resting, or no. */
const fitNow = 0
const restingNow = 1
const unfit = 2

/**
 * The gateway's default upstream selector: it skips upstreams whose circuit is open (sharing
 * openings through the circuit store), lets exactly one probe through a circuit whose opening has
 * passed, respects each upstream's `maxConcurrent`, rotates pooled keys and takes refused ones
 * out of rotation, keeps to the lowest priority tier with a fit upstream, and balances within it
 * by the group's strategy (`chooseUpstream`) — or, with session affinity, keeps each session on
 * its rendezvous choice in that tier while that upstream is fit. Each selection says why
 * (`Selection.choice`); successes feed the latency measures, picks the traffic shares.
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
    choice: AttemptChoice,
    explored: LatencyMeasure | undefined,
  ): Selection {
    state.traffic.count(at)
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
    if (explored !== undefined) explored.probing = true
    // Plain attempts share one selection per choice (`only`, or a strategy's without a score).
    const plain = state.pool === undefined && probes === 0 && !resting && explored === undefined
    if (plain && choice.score === undefined) return state.sharedSelection(pair, choice, shared)
    const index = state.pool?.take(at, sessionHash)
    return selectionOf(state, pair, index, probes, resting, choice, explored)
  }

  function plainSelection(state: UpstreamState, pair: PairCircuit | undefined): Selection {
    return selectionOf(state, pair, undefined, 0, false, state.onlyChoice, undefined)
  }
  function shared(state: UpstreamState, pair: PairCircuit | undefined, choice: AttemptChoice) {
    return selectionOf(state, pair, undefined, 0, false, choice, undefined)
  }

  function selectionOf(
    state: UpstreamState,
    pair: PairCircuit | undefined,
    index: number | undefined,
    probes: number,
    resting: boolean,
    choice: AttemptChoice,
    explored: LatencyMeasure | undefined,
  ): Selection {
    const attempt: JudgedAttempt = { state, pair, index, probes, resting }
    const release = () => {
      state.inFlight -= 1
      if (index !== undefined) state.pool!.release(index)
    }
    const selection: Selection = {
      upstream: state.upstream,
      credential: index === undefined ? undefined : { index, masked: state.pool!.masked[index]! },
      choice,
      finish(verdict: AttemptVerdict, until?: Promise<unknown>) {
        const at = now()
        judgeAttempt(attempt, verdict, at, store, logger)
        if (explored !== undefined) explored.probing = false
        if (verdict.kind === 'ok') state.noteLatency(pair?.model, verdict, at)
        if (until === undefined) release()
        else void until.then(release, release)
      },
    }
    if (resting) selection.resting = true
    return selection
  }

  // Reused by every pick: `select` is synchronous, so one pick never sees another's.
  const pick = newPick()
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
    const { policy, states: upstreams, fit: fitness, tiered } = states.of(group)
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
        only.traffic.count(at)
        if (pair === undefined) return (only.plain ??= plainSelection(only, pair))
        return (pair.plain ??= plainSelection(only, pair))
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
          const choice = state.sharedChoice(fitness === restingNow ? 'resting' : 'retry-same')
          return take(state, pair, at, sessionHash, fitness === restingNow, choice, undefined)
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
    chooseUpstream(
      upstreams,
      fitness,
      tiered,
      policy.balancing,
      sessionHash,
      context,
      at,
      random,
      pick,
    )
    if (pick.index >= 0) {
      const state = upstreams[pick.index]!
      return take(
        state,
        model === undefined ? undefined : state.pairOf(model),
        at,
        sessionHash,
        false,
        choiceOf(pick, state, upstreams.length === 1),
        pick.explored,
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
        state.sharedChoice('resting'),
        undefined,
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
        groupHealth(group.id, states.of(group).states, at, (state) => {
          syncWithStore(store, state.breaker, state.circuitId, at)
          for (const pair of state.pairs.values()) syncWithStore(store, pair.breaker, pair.id, at)
        }),
      )
    },
    async close() {
      await store?.close?.()
    },
  }
}
