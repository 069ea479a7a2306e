import type { CircuitBreaker } from './circuit-breaker'
import type { CircuitStore } from './circuit-store'
import type { AttemptVerdict } from './upstream-selector'
import type { PairCircuit, UpstreamState } from './upstream-state'

/** Where the selector's lines go: a circuit opening, a key leaving rotation (default `console`). */
export type SelectorLogger = { warn(message: string): void }

/** Which circuits an attempt holds the half-open probe of (bits). */
export const wholeProbe = 1
export const pairProbe = 2

/** One attempt, as its verdict needs it: where it went, with which key, holding which probes. */
export type JudgedAttempt = {
  state: UpstreamState
  pair: PairCircuit | undefined
  index: number | undefined
  probes: number
  /** Sent while resting: its success ends the rest, its failure adds nothing to it. */
  resting: boolean
}

/**
 * Brings a local breaker up to what the store knows: an opening made elsewhere is adopted, and a
 * recovery made elsewhere after this opening ends it.
 */
export function syncWithStore(
  store: CircuitStore | undefined,
  breaker: CircuitBreaker,
  id: string,
  at: number,
): void {
  if (store === undefined) return
  const shared = store.openUntil(id, at)
  if (shared !== undefined && shared > at) {
    if (shared > breaker.openUntil) breaker.adopt(shared, at)
    return
  }
  if (breaker.state === 'closed' || store.recoveredAt === undefined) return
  const recovered = store.recoveredAt(id, at)
  if (recovered !== undefined && recovered > breaker.openedAt) breaker.recover()
}

/**
 * Applies an attempt's verdict to its circuits: a success closes what it probed (and, sent while
 * resting, ends the rest, on every instance through the store); a failure with an answer weighs on
 * the pair (upstream, model), one without on the whole upstream; a refused key leaves its pool, or
 * with a single credential rests the whole upstream.
 */
export function judgeAttempt(
  attempt: JudgedAttempt,
  verdict: AttemptVerdict,
  at: number,
  store: CircuitStore | undefined,
  logger: SelectorLogger,
): void {
  const { state, pair, probes } = attempt
  const whole = state.breaker
  switch (verdict.kind) {
    case 'ok': {
      succeed(whole, state.circuitId, (probes & wholeProbe) !== 0, attempt.resting, at, store)
      if (pair !== undefined) {
        succeed(pair.breaker, pair.id, (probes & pairProbe) !== 0, attempt.resting, at, store)
      }
      return
    }
    case 'neutral':
      whole.releaseProbe((probes & wholeProbe) !== 0)
      pair?.breaker.releaseProbe((probes & pairProbe) !== 0)
      return
    case 'failed': {
      const onPair = verdict.answered === true && pair !== undefined
      const breaker = onPair ? pair.breaker : whole
      const id = onPair ? pair.id : state.circuitId
      const probe = (probes & (onPair ? pairProbe : wholeProbe)) !== 0
      if (onPair) whole.releaseProbe((probes & wholeProbe) !== 0)
      else pair?.breaker.releaseProbe((probes & pairProbe) !== 0)
      const status = verdict.status
      const immediate = status === 429 || status === 529
      if (breaker.failed(at, { immediate, retryAfterMs: verdict.retryAfterMs }, probe)) {
        store?.open(id, breaker.openUntil - at, at)
        const seconds = ((breaker.openUntil - at) / 1000).toFixed(1)
        const what = onPair
          ? `upstream ${state.circuitId}, model "${pair.model}"`
          : `upstream ${state.circuitId}`
        const last =
          status !== undefined
            ? `, last HTTP ${status}`
            : onPair
              ? ', an unusable answer'
              : ', no answer'
        logger.warn(
          `[model-gateway] ${what}: circuit open for ${seconds} s (${breaker.reason}${last}).`,
        )
      }
      return
    }
    case 'rejected-key':
      pair?.breaker.releaseProbe((probes & pairProbe) !== 0)
      if (attempt.index === undefined) {
        // One credential: the upstream itself is unusable until it is fixed; its circuit
        // opens, and reopens ever longer while probes keep being refused.
        if (whole.failed(at, { immediate: true }, (probes & wholeProbe) !== 0)) {
          store?.open(state.circuitId, whole.openUntil - at, at)
          logger.warn(
            `[model-gateway] upstream ${state.circuitId}: circuit open, its key was ${verdict.reason}.`,
          )
        }
        return
      }
      whole.releaseProbe((probes & wholeProbe) !== 0)
      logger.warn(
        `[model-gateway] upstream ${state.circuitId}: ${state.pool!.disable(attempt.index, verdict.status, verdict.reason, at)}.`,
      )
      return
    default: {
      const unknown: never = verdict
      throw new Error(`Unknown verdict ${String(unknown)}`)
    }
  }
}

/** A success: a probe closes its circuit; one sent while resting ends the rest; either is shared. */
function succeed(
  breaker: CircuitBreaker,
  id: string,
  probe: boolean,
  resting: boolean,
  at: number,
  store: CircuitStore | undefined,
): void {
  const wasResting = breaker.state !== 'closed'
  if (resting) breaker.recover()
  else breaker.succeeded(at, probe)
  if (wasResting && breaker.state === 'closed') store?.recovered?.(id, at)
}
