import { computedCooldownMs, type CircuitPolicy } from './circuit-policy'

/** The three states of a circuit: traffic flows, none flows, or one probe may go. */
export type CircuitState = 'closed' | 'open' | 'half-open'

/** Whether an attempt may go to the upstream now, as a pick sees it (nothing is taken yet). */
export type CircuitAvailability = 'closed' | 'probe' | 'blocked'

/** How a failed attempt weighs on the circuit. */
export type CircuitFailure = {
  /** The upstream said when to come back (`retry-after`): open for that long, at once. */
  retryAfterMs?: number | undefined
  /** A rate limit or overload (429, 529): open at once, for the cooldown when no time was said. */
  immediate: boolean
}

/** Slots of the failure-ratio window: a sliding window to within a sixth of its length. */
const slotCount = 6

/**
 * One upstream's circuit breaker: closed → open → half-open with exactly one probe → closed.
 *
 * It opens at once on a rate limit or overload (for `retry-after` when the upstream gave one,
 * else for an exponential cooldown with jitter, capped), or after `consecutiveFailures` failures
 * in a row, or when failures pass `failureRatio` of at least `minimumCalls` attempts within
 * `windowMs`. Once the opening has passed, one attempt is let through as a probe: its success
 * closes the circuit, its failure reopens it for twice as long. Only the probe's outcome moves a
 * half-open circuit: attempts that began before the circuit opened and end later are not heard.
 *
 * The breaker never reads a clock or a random source of its own: both are passed in, so tests
 * drive it with a fake clock.
 */
export class CircuitBreaker {
  state: CircuitState = 'closed'
  /** Epoch ms when an open circuit lets its probe through. */
  openUntil = 0
  /** Openings since the circuit was last closed by a probe: the cooldown's exponent. */
  openings = 0
  /** Why the circuit last opened, for logs and `health()`. */
  reason: string | undefined
  /** Epoch ms when the circuit last opened (here or, adopted, elsewhere): a recovery after it ends the rest. */
  openedAt = 0
  private consecutive = 0
  private probeOut = false
  private slotEpochs: number[] | undefined
  private slotCalls: number[] | undefined
  private slotFailures: number[] | undefined

  private readonly policy: Readonly<CircuitPolicy>
  private readonly random: () => number

  constructor(policy: Readonly<CircuitPolicy>, random: () => number) {
    this.policy = policy
    this.random = random
  }

  /** Whether an attempt may go now: freely, as the one probe, or not at all. Changes nothing. */
  availability(now: number): CircuitAvailability {
    if (this.state === 'closed') return 'closed'
    if (this.state === 'open' && now < this.openUntil) return 'blocked'
    return this.probeOut ? 'blocked' : 'probe'
  }

  /** Takes the probe of a circuit whose opening has passed (after `availability` said `probe`). */
  takeProbe(): void {
    this.state = 'half-open'
    this.probeOut = true
  }

  /** Milliseconds until this circuit may let an attempt through, or undefined when unknown (a probe is out). */
  retryAfterMs(now: number): number | undefined {
    if (this.state === 'closed') return 0
    if (this.state === 'open') return Math.max(0, this.openUntil - now)
    return undefined
  }

  /** An attempt succeeded. A probe's success closes the circuit. */
  succeeded(now: number, probe: boolean): void {
    if (probe) {
      this.close()
      return
    }
    if (this.state !== 'closed') return
    this.consecutive = 0
    this.record(now, false)
  }

  /** An attempt failed. Returns true when this failure opened (or reopened) the circuit. */
  failed(now: number, failure: CircuitFailure, probe: boolean): boolean {
    if (!this.policy.enabled) return false
    if (probe) {
      this.probeOut = false
      this.open(now, failure.retryAfterMs, 'probe failed')
      return true
    }
    // A late failure of an attempt begun before the circuit opened tells nothing new.
    if (this.state !== 'closed') return false
    if (failure.immediate || failure.retryAfterMs !== undefined) {
      this.open(now, failure.retryAfterMs, 'rate limited or overloaded')
      return true
    }
    this.consecutive += 1
    const ratioExceeded = this.record(now, true)
    if (this.consecutive >= this.policy.consecutiveFailures) {
      this.open(now, undefined, `${this.consecutive} failures in a row`)
      return true
    }
    if (ratioExceeded) {
      this.open(now, undefined, 'failure ratio exceeded')
      return true
    }
    return false
  }

  /**
   * The pair answered well while resting (an attempt sent because nothing else could serve), or
   * another instance says it did after this opening: the rest ends now, the cooldown's exponent
   * with it.
   */
  recover(): void {
    if (this.state !== 'closed') this.close()
  }

  /** The probe ended with no verdict on the upstream (the client left, its own error): another may go. */
  releaseProbe(probe: boolean): void {
    if (probe) this.probeOut = false
  }

  /**
   * Another instance opened this circuit until `until` (epoch ms, this instance's clock): held
   * open as if it had opened here, without raising the cooldown's exponent.
   */
  adopt(until: number, now: number): void {
    if (until <= this.openUntil && this.state !== 'closed') return
    if (this.state === 'closed') this.openedAt = now
    this.state = 'open'
    this.openUntil = until
    this.reason ??= 'opened by another instance'
    this.resetCounts()
  }

  private open(now: number, retryAfterMs: number | undefined, reason: string): void {
    this.openings += 1
    const duration =
      retryAfterMs === undefined
        ? computedCooldownMs(this.policy, this.openings, this.random)
        : Math.min(Math.max(retryAfterMs, 0), this.policy.maxCooldownMs)
    this.state = 'open'
    this.openedAt = now
    this.openUntil = now + duration
    this.reason = retryAfterMs === undefined ? reason : `${reason} (retry-after)`
    this.resetCounts()
  }

  private close(): void {
    this.state = 'closed'
    this.openUntil = 0
    this.openings = 0
    this.probeOut = false
    this.reason = undefined
    this.resetCounts()
  }

  private resetCounts(): void {
    this.consecutive = 0
    this.slotEpochs?.fill(-1)
    this.slotCalls?.fill(0)
    this.slotFailures?.fill(0)
  }

  /** Counts an attempt in the window; true when failures now exceed the ratio. */
  private record(now: number, failed: boolean): boolean {
    if (this.policy.failureRatio >= 1) return false
    const slotMs = Math.max(1, this.policy.windowMs / slotCount)
    const epoch = Math.floor(now / slotMs)
    const index = epoch % slotCount
    if (this.slotEpochs === undefined) {
      this.slotEpochs = new Array<number>(slotCount).fill(-1)
      this.slotCalls = new Array<number>(slotCount).fill(0)
      this.slotFailures = new Array<number>(slotCount).fill(0)
    }
    const epochs = this.slotEpochs
    const calls = this.slotCalls!
    const failures = this.slotFailures!
    if (epochs[index] !== epoch) {
      epochs[index] = epoch
      calls[index] = 0
      failures[index] = 0
    }
    calls[index]! += 1
    if (failed) failures[index]! += 1
    else return false
    let totalCalls = 0
    let totalFailures = 0
    for (let slot = 0; slot < slotCount; slot += 1) {
      if (epochs[slot]! <= epoch - slotCount) continue
      totalCalls += calls[slot]!
      totalFailures += failures[slot]!
    }
    return (
      totalCalls >= this.policy.minimumCalls &&
      totalFailures / totalCalls > this.policy.failureRatio
    )
  }
}
