type SetImmediate = (callback: () => void) => unknown

const setImmediateOf = (globalThis as { setImmediate?: SetImmediate }).setImmediate

/**
 * Lets the runtime read the I/O it has pending before the caller goes on, where it has a
 * `setImmediate` (Node, Bun): a client's socket that closed while the gateway was busy is then
 * seen, and its request's signal aborts. Two hops, because an immediate queued from I/O runs
 * before the loop polls again; one queued from an immediate runs after that poll. Under a burst
 * this is the difference between checking a signal and checking it in time (see
 * `npm run bench:burst`). Elsewhere it resolves at once.
 */
export function yieldToIo(): Promise<void> | undefined {
  const later = setImmediateOf
  if (later === undefined) return undefined
  return new Promise((resolve) => later(() => later(resolve)))
}
