/** Where the meter's failure messages go (default: `console`). */
export type StoreLogger = {
  warn(message: string): void
  error(message: string): void
}

/** Options of `createStoreHealth`. */
export type StoreHealthOptions = {
  /** The store, as log lines name it: `Redis usage store`. */
  name: string
  /** What the gateway does while the store is down, for the log line. */
  whileDown: string
  /** While down, how often one call is let through to see whether the store is back. */
  probeIntervalMs: number
  now: () => number
  logger: StoreLogger
}

/**
 * Whether a store is answering, and the loud log lines of each change: one when it stops, one when
 * it is back — never one per request. While it is down, calls skip it (no timeout to wait out on
 * every request) except one probe per interval.
 */
export function createStoreHealth(options: StoreHealthOptions) {
  let down = false
  let downSince = 0
  let lastProbe = 0
  return {
    get down(): boolean {
      return down
    },
    /** Whether to ask the store now: always while it is up; while down, once per probe interval. */
    shouldTry(): boolean {
      if (!down) return true
      const now = options.now()
      if (now - lastProbe < options.probeIntervalMs) return false
      lastProbe = now
      return true
    },
    succeeded(): void {
      if (!down) return
      down = false
      const seconds = ((options.now() - downSince) / 1000).toFixed(1)
      options.logger.warn(
        `[model-gateway] ${options.name} is answering again after ${seconds} s: limits are shared again.`,
      )
    },
    failed(error: unknown): void {
      if (down) return
      down = true
      downSince = options.now()
      lastProbe = downSince
      const reason = error instanceof Error ? error.message : String(error)
      options.logger.error(
        `[model-gateway] ${options.name} is not answering (${reason}). ${options.whileDown}`,
      )
    },
  }
}

/** The health of one store. */
export type StoreHealth = ReturnType<typeof createStoreHealth>
