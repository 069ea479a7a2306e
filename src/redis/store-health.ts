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

/** A shard's outage: since when, and when a call last probed it. */
type Outage = { since: number; lastProbe: number }

/** A shard no call has asked about for this long is forgotten (its outage counts as over). */
const forgetAfterMs = 30_000
/**
 * The most shards remembered down. Shards are hash tags (one per key, team or end user), so a
 * store that is down whole would otherwise collect one per caller for as long as it stays down;
 * past the bound the idle are forgotten, then the oldest (a forgotten shard costs one probe).
 */
const maxOutages = 10_000

/**
 * Whether a store is answering, and the loud log lines of each change: one when it stops, one when
 * it is back — never one per request. While it is down, calls skip it (no timeout to wait out on
 * every request) except one probe per interval.
 *
 * A store may be sharded (Redis Cluster: each master serves its slots). Calls then name their
 * shard (the hash tag of their keys), and each shard is up or down on its own: a dead master's
 * keys fall back to the failure policy while the others are served. The log lines stay one each
 * way for the store: the first shard down says it stopped, the last one back says it answers
 * again — so calls that alternate between a dead and a live master do not flap the log.
 */
export function createStoreHealth(options: StoreHealthOptions) {
  const outages = new Map<string, Outage>()
  let downSince = 0
  const forgetIdle = (now: number) => {
    for (const [shard, outage] of outages) {
      if (now - outage.lastProbe > forgetAfterMs) outages.delete(shard)
    }
  }
  const back = () => {
    const seconds = ((options.now() - downSince) / 1000).toFixed(1)
    options.logger.warn(
      `[model-gateway] ${options.name} is answering again after ${seconds} s: limits are shared again.`,
    )
  }
  return {
    /** Whether some shard (or the store) is down. */
    get down(): boolean {
      return outages.size > 0
    },
    /** Whether to ask the store now: always while it is up; while down, once per probe interval. */
    shouldTry(shard = ''): boolean {
      const outage = outages.get(shard)
      if (outage === undefined) return true
      const now = options.now()
      if (now - outage.lastProbe < options.probeIntervalMs) return false
      outage.lastProbe = now
      return true
    },
    succeeded(shard = ''): void {
      if (outages.size === 0) return
      outages.delete(shard)
      if (outages.size > 0) forgetIdle(options.now())
      if (outages.size === 0) back()
    },
    failed(error: unknown, shard = ''): void {
      if (outages.has(shard)) return
      const now = options.now()
      const first = outages.size === 0
      if (outages.size >= maxOutages) {
        forgetIdle(now)
        if (outages.size >= maxOutages) outages.delete(outages.keys().next().value!)
      }
      outages.set(shard, { since: now, lastProbe: now })
      if (!first) return
      downSince = now
      const reason = error instanceof Error ? error.message : String(error)
      options.logger.error(
        `[model-gateway] ${options.name} is not answering (${reason}). ${options.whileDown}`,
      )
    },
  }
}

/** The health of one store. */
export type StoreHealth = ReturnType<typeof createStoreHealth>
