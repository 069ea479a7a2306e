/**
 * Returns a signal that aborts when any of the given signals does. Uses `AbortSignal.any` where the
 * runtime has it and falls back to forwarding by hand, which is what older runtimes need.
 */
export function anySignal(signals: ReadonlyArray<AbortSignal | undefined>): AbortSignal {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined)
  if (present.length === 1) return present[0]!
  if (typeof AbortSignal.any === 'function') return AbortSignal.any(present)
  const controller = new AbortController()
  for (const signal of present) {
    if (signal.aborted) {
      controller.abort(signal.reason)
      break
    }
    signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true })
  }
  return controller.signal
}

/** True for the error a fetch or stream throws when its signal aborted it. */
export function isAbortError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'name' in error &&
    (error.name === 'AbortError' || error.name === 'TimeoutError')
  )
}
