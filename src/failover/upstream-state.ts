import type { Group } from '../routing/group-registry'
import type { AttemptChoice, ChoiceStrategy } from '../usage/upstream-attempt'
import type { UpstreamProvider } from '../upstream/provider'
import type { Balancing, Candidate } from './balancing'
import { CircuitBreaker } from './circuit-breaker'
import { resolveCircuitPolicy, type CircuitPolicy } from './circuit-policy'
import { circuitIdOf } from './circuit-store'
import { defaultKeyCooldowns, KeyPool, type KeyCooldowns, type KeyRotation } from './key-pool'
import { latencySample, newLatencyPair, type LatencyPair } from './latency-measure'
import { hashText } from './rendezvous'
import { TrafficShare } from './traffic-share'
import type { SessionAffinity } from './session-hint'
import type { AttemptVerdict, Selection } from './upstream-selector'

type OkVerdict = Extract<AttemptVerdict, { kind: 'ok' }>

/** A group's selection policy with its defaults filled in. */
export type GroupPolicy = {
  balancing: Balancing
  affinity: SessionAffinity | undefined
  circuit: Readonly<CircuitPolicy>
  rotation: KeyRotation
  keyCooldowns: Readonly<KeyCooldowns>
}

/** The policy a group's settings call for. */
export function groupPolicyOf(group: Group): GroupPolicy {
  const keyPool = group.keyPool
  return {
    balancing: group.balancing ?? 'weighted',
    affinity: group.sessionAffinity,
    circuit: resolveCircuitPolicy(group.circuitBreaker),
    rotation: keyPool?.rotation ?? 'round-robin',
    keyCooldowns:
      keyPool?.rejectedCooldownMs === undefined && keyPool?.quotaCooldownMs === undefined
        ? defaultKeyCooldowns
        : {
            rejectedMs: keyPool.rejectedCooldownMs ?? defaultKeyCooldowns.rejectedMs,
            quotaMs: keyPool.quotaCooldownMs ?? defaultKeyCooldowns.quotaMs,
          },
  }
}

/**
 * The circuit of one upstream model on one upstream: an upstream that answered a failure (429,
 * 5xx, 529, an unusable 2xx) rests that model alone, since vendors limit and overload per model.
 */
export type PairCircuit = {
  readonly model: string
  readonly breaker: CircuitBreaker
  /** `<group id>/<upstream id>/<upstream model>`: the pair's name in the store. */
  readonly id: string
  /** The shared selection of this pair's plain attempts (see `UpstreamState.plain`). */
  plain: Selection | undefined
  /** The shared selections of plain attempts chosen by a strategy without a score, by choice. */
  plainBy: Map<AttemptChoice, Selection> | undefined
}

/**
 * What one gateway knows of one upstream of one group: its circuits (the whole upstream's, opened
 * when it cannot be reached, and one per upstream model, opened when it answers failures), its
 * load, its keys.
 */
export class UpstreamState implements Candidate {
  inFlight = 0
  /** Its tier (`priority`, default 0): lower first. */
  readonly priority: number
  /** The choice of every attempt of a one-upstream group: shared, nothing to decide. */
  readonly onlyChoice: AttemptChoice
  private readonly choices = new Map<ChoiceStrategy, AttemptChoice>()
  /** The calls this instance sent it lately (`health()`'s share of traffic). */
  readonly traffic = new TrafficShare()
  /** Its latency measures by upstream model (`''`: calls without one), made on first success. */
  private readonly latency = new Map<string, LatencyPair>()
  /** The whole upstream's circuit: no answer at all (refused, reset, DNS, TLS, no headers in time). */
  readonly breaker: CircuitBreaker
  /** The circuits of the upstream models asked of it, made on first use. */
  readonly pairs = new Map<string, PairCircuit>()
  readonly pool: KeyPool | undefined
  /** `<group id>/<upstream id>`: the circuit's name in the store. */
  readonly circuitId: string
  readonly idHash: number
  readonly weight: number
  readonly maxConcurrent: number | undefined
  /**
   * The selection of every attempt that needs none of its own (a closed circuit, no key pool):
   * one object for all of them, so the common pick allocates nothing.
   */
  plain: Selection | undefined
  /** As `plain`, for a group of several upstreams: one per shared choice (`sharedChoice`). */
  plainBy: Map<AttemptChoice, Selection> | undefined
  upstream: UpstreamProvider
  private readonly policy: GroupPolicy
  private readonly random: () => number

  constructor(
    groupId: string,
    upstream: UpstreamProvider,
    policy: GroupPolicy,
    random: () => number,
  ) {
    this.upstream = upstream
    this.policy = policy
    this.random = random
    this.breaker = new CircuitBreaker(policy.circuit, random)
    this.circuitId = circuitIdOf(groupId, upstream.id)
    this.idHash = hashText(upstream.id)
    this.weight = upstream.weight ?? 1
    this.priority = upstream.priority ?? 0
    this.onlyChoice = { tier: this.priority, strategy: 'only' }
    this.maxConcurrent = upstream.maxConcurrent
    const credentials = upstream.credentials
    this.pool =
      credentials !== undefined && credentials.length > 0
        ? new KeyPool(credentials, policy.rotation, policy.keyCooldowns)
        : undefined
  }

  /** The circuit of this upstream serving `model`, made on first use. */
  pairOf(model: string): PairCircuit {
    let pair = this.pairs.get(model)
    if (pair === undefined) {
      pair = {
        model,
        breaker: new CircuitBreaker(this.policy.circuit, this.random),
        id: `${this.circuitId}/${model}`,
        plain: undefined,
        plainBy: undefined,
      }
      this.pairs.set(model, pair)
    }
    return pair
  }

  /**
   * The choice `{tier, strategy}` of a strategy without a score, one object per strategy, so that
   * the plain attempts it chooses can share a selection (`plainBy`).
   */
  sharedChoice(strategy: ChoiceStrategy): AttemptChoice {
    let choice = this.choices.get(strategy)
    if (choice === undefined) {
      choice = { tier: this.priority, strategy }
      this.choices.set(strategy, choice)
    }
    return choice
  }

  /** The shared selection of plain attempts with this choice on `pair`, made on first use. */
  sharedSelection(
    pair: PairCircuit | undefined,
    choice: AttemptChoice,
    make: (state: UpstreamState, pair: PairCircuit | undefined, choice: AttemptChoice) => Selection,
  ): Selection {
    const shared = ((pair ?? this).plainBy ??= new Map())
    let selection = shared.get(choice)
    if (selection === undefined) {
      selection = make(this, pair, choice)
      shared.set(choice, selection)
    }
    return selection
  }

  /** Its latency measures for an upstream model, made on first use. */
  latencyOf(model: string | undefined): LatencyPair {
    const key = model ?? ''
    let pair = this.latency.get(key)
    if (pair === undefined) {
      pair = newLatencyPair()
      this.latency.set(key, pair)
    }
    return pair
  }

  /** Feeds a success's time to the measure of its upstream model and kind of call. */
  noteLatency(model: string | undefined, verdict: OkVerdict, at: number): void {
    if (verdict.elapsedMs === undefined) return
    const stream = verdict.stream === true
    const measures = this.latencyOf(model)
    const sample = latencySample(verdict.elapsedMs, stream, verdict.outputTokens)
    ;(stream ? measures.stream : measures.json).add(sample, at)
  }

  /** The measures taken so far, by upstream model, for `health()`. */
  latencies(): ReadonlyMap<string, LatencyPair> {
    return this.latency
  }

  /**
   * × the catalogue's price of `model` on this upstream: its regional surcharge (the provider's,
   * memoised there) times its own `priceMultiplier`.
   */
  priceFactor(model: string | undefined): number {
    const upstream = this.upstream
    const surcharge = model === undefined ? undefined : upstream.priceSurcharge?.(model)
    return (surcharge?.multiplier ?? 1) * (upstream.priceMultiplier ?? 1)
  }

  /** True when the upstream is at its `maxConcurrent`. */
  get full(): boolean {
    return this.maxConcurrent !== undefined && this.inFlight >= this.maxConcurrent
  }
}

/**
 * The state of every upstream of every group, by group id and upstream id (a registry may hand
 * out new group objects on every call), with each group object's upstreams' states in the group's
 * order cached, so a pick walks an array.
 */
export class UpstreamStates {
  private readonly groups = new Map<
    string,
    { policy: GroupPolicy; byId: Map<string, UpstreamState> }
  >()
  private readonly aligned = new WeakMap<
    Group,
    { policy: GroupPolicy; states: UpstreamState[]; fit: Uint8Array; tiered: boolean }
  >()

  private readonly random: () => number

  constructor(random: () => number) {
    this.random = random
  }

  /** The group's policy and its upstreams' states, in the group's order, with a scratch array. */
  of(group: Group): {
    policy: GroupPolicy
    states: UpstreamState[]
    fit: Uint8Array
    /** True when its upstreams are in more than one tier. */
    tiered: boolean
  } {
    const cached = this.aligned.get(group)
    if (cached !== undefined) return cached
    const policy = groupPolicyOf(group)
    let entry = this.groups.get(group.id)
    if (entry === undefined) {
      entry = { policy, byId: new Map() }
      this.groups.set(group.id, entry)
    }
    const byId = entry.byId
    const states = group.upstreams.map((upstream) => {
      let state = byId.get(upstream.id)
      if (state === undefined) {
        state = new UpstreamState(group.id, upstream, policy, this.random)
        byId.set(upstream.id, state)
      } else if (state.upstream !== upstream) {
        state.upstream = upstream
        state.plain = undefined
        state.plainBy = undefined
        for (const pair of state.pairs.values()) {
          pair.plain = undefined
          pair.plainBy = undefined
        }
      }
      return state
    })
    const tiered = states.some((state) => state.priority !== states[0]!.priority)
    const result = { policy, states, fit: new Uint8Array(states.length), tiered }
    this.aligned.set(group, result)
    return result
  }
}
