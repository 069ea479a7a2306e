/**
 * How fast an upstream answers one upstream model, as one gateway instance has measured it: a
 * decaying average of its recent successes. Streams and JSON answers are measured apart and never
 * compared: a stream by its time to first token, a JSON answer by its time per output token.
 *
 * @module
 */

/** A sample's weight falls to 1/e after this long without newer ones (docs: routing-and-failover). */
export const latencyDecayMs = 30_000
/** A measure this old counts as none: the upstream is probed again before it is trusted. */
export const staleLatencyMs = 300_000
/** Each sample moves the average at least this much, so dense traffic still follows change. */
const minimumStep = 0.1

/**
 * A decaying average (EWMA) whose step grows with the time since the last sample: `1 −
 * exp(−Δt/τ)`, at least `minimumStep`. A first sample, or one after the measure went stale,
 * replaces it outright. Only successes feed it; failures are the circuits' business.
 */
export class LatencyMeasure {
  /** Milliseconds: to first token (streams), per output token (JSON). */
  value = 0
  samples = 0
  /** When the last sample came (epoch ms). */
  at = 0
  /** True while this instance's one exploration call to an unmeasured upstream is out. */
  probing = false

  /** Adds one success's sample, taken at `at`. */
  add(sample: number, at: number): void {
    if (!Number.isFinite(sample) || sample < 0) return
    if (this.samples === 0 || at - this.at > staleLatencyMs) this.value = sample
    else {
      const step = Math.max(minimumStep, 1 - Math.exp(-Math.max(0, at - this.at) / latencyDecayMs))
      this.value += step * (sample - this.value)
    }
    this.samples += 1
    this.at = at
  }

  /** True when it has a sample recent enough to rank by. */
  fresh(at: number): boolean {
    return this.samples > 0 && at - this.at <= staleLatencyMs
  }
}

/** The two measures of one (upstream, upstream model). */
export type LatencyPair = { readonly stream: LatencyMeasure; readonly json: LatencyMeasure }

/** A new pair of measures. */
export function newLatencyPair(): LatencyPair {
  return { stream: new LatencyMeasure(), json: new LatencyMeasure() }
}

/**
 * One success's sample: a stream's time to its first token as it is (dividing it by tokens not
 * yet produced would make slow starters look fast), a JSON answer's time per output token when the
 * upstream reported them (at least one: a tool-call-only answer reports none), else its whole time.
 */
export function latencySample(
  elapsedMs: number,
  stream: boolean,
  outputTokens: number | undefined,
): number {
  if (stream || outputTokens === undefined || !(outputTokens > 0)) return elapsedMs
  return elapsedMs / outputTokens
}
