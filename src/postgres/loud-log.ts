/**
 * A log for trouble that may repeat many times a second (a database outage, a full queue): the
 * first occurrence is printed at once, later ones at most once per interval with how many were
 * folded into it, so that the problem is loud without flooding the log.
 */
export function createLoudLog(intervalMs = 10_000, now: () => number = Date.now) {
  let lastAt = -Infinity
  let folded = 0
  return (message: string, error?: unknown) => {
    const time = now()
    if (time - lastAt < intervalMs) {
      folded += 1
      return
    }
    const suffix = folded > 0 ? ` (${folded} more like this since the last report)` : ''
    folded = 0
    lastAt = time
    if (error === undefined) console.error(`[model-gateway] ${message}${suffix}`)
    else console.error(`[model-gateway] ${message}${suffix}:`, describeError(error))
  }
}

/** A driver error's message and SQLSTATE, without its stack or the connection details. */
export function describeError(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error)
  const { message, code } = error as { message?: unknown; code?: unknown }
  const text = typeof message === 'string' && message !== '' ? message : String(error)
  return typeof code === 'string' ? `${text} (${code})` : text
}
