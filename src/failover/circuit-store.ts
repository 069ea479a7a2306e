/**
 * Where open circuits are shared. Each gateway instance keeps its own breakers (the failure
 * counts, the probe); the store carries their openings, so that a circuit one instance opened is
 * skipped by the others until it closes.
 *
 * `openUntil` is read on every pick, so it must answer from memory, synchronously: a store that
 * lives elsewhere (Redis) keeps a local copy fresh in the background, and its staleness bound is
 * part of its documentation. `open` is told of each opening and returns at once.
 */
export interface CircuitStore {
  /**
   * Until when the circuit is held open (epoch ms, on this instance's clock), as far as this
   * instance knows; undefined or a past time when it is not.
   *
   * @param circuit `<group id>/<upstream id>`.
   */
  openUntil(circuit: string, now: number): number | undefined
  /** This instance opened the circuit for `durationMs` from `now`. Never throws, never waits. */
  open(circuit: string, durationMs: number, now: number): void
  /**
   * The circuit's pair answered well: its rest ends now, here and, through the store, on every
   * instance (an attempt sent while resting that succeeds ends the rest early). Never throws,
   * never waits.
   */
  recovered?(circuit: string, now: number): void
  /**
   * When the circuit last recovered (epoch ms, this instance's clock), if the store knows: an
   * instance holding the circuit open since before then closes it.
   */
  recoveredAt?(circuit: string, now: number): number | undefined
  /** Brings this instance's copy up to date now (the gateway's `health()` calls it first). */
  sync?(): Promise<void>
  /** Releases what the store holds (a timer, a connection). */
  close?(): Promise<void>
}

/**
 * The default store: openings kept in this process. Pass one store to several gateways created in
 * the same process and they share their open circuits.
 */
export function createMemoryCircuitStore(): CircuitStore {
  const openings = new Map<string, number>()
  const recoveries = new Map<string, number>()
  return {
    openUntil(circuit, now) {
      const until = openings.get(circuit)
      if (until === undefined) return undefined
      if (until > now) return until
      openings.delete(circuit)
      return undefined
    },
    open(circuit, durationMs, now) {
      const until = now + durationMs
      if ((openings.get(circuit) ?? 0) < until) openings.set(circuit, until)
    },
    recovered(circuit, now) {
      openings.delete(circuit)
      recoveries.set(circuit, now)
    },
    recoveredAt(circuit) {
      return recoveries.get(circuit)
    },
  }
}

/**
 * The store key of one group's upstream (`<group>/<upstream>`, the circuit that rests the whole
 * upstream) or, given the upstream model, of the pair (`<group>/<upstream>/<model>`, the circuit
 * that rests that model alone).
 */
export function circuitIdOf(groupId: string, upstreamId: string, model?: string): string {
  return model === undefined ? `${groupId}/${upstreamId}` : `${groupId}/${upstreamId}/${model}`
}
