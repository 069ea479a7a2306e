/** The length of one counting window of `TrafficShare`. */
export const trafficWindowMs = 60_000

/**
 * The calls one instance sent an upstream lately: this window's and the last one's, so that a
 * share read just after a window turned still covers a minute or more. Counting is two compares
 * and an add; nothing is allocated.
 */
export class TrafficShare {
  private current = 0
  private previous = 0
  private started = 0

  /** Counts one call sent at `at`. */
  count(at: number): void {
    this.roll(at)
    this.current += 1
  }

  /** The calls sent in this window and the last, as of `at`. */
  recent(at: number): number {
    this.roll(at)
    return this.current + this.previous
  }

  private roll(at: number): void {
    if (at - this.started < trafficWindowMs) return
    // Two windows or more since the last call: the last window is empty too.
    this.previous = at - this.started < 2 * trafficWindowMs ? this.current : 0
    this.current = 0
    this.started = at - ((at - this.started) % trafficWindowMs)
  }
}
