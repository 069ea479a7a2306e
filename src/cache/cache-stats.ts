/** One group's cache counts on this instance. */
export type GroupCacheCounts = {
  hits: number
  misses: number
  bypasses: number
  /** What the hits saved: the original calls' cost, nano-USD (priced hits only). */
  savedNanoUsd: number
}

/** This instance's cache counts per group, since it started: what the console shows. */
export type CacheStats = {
  count(group: string, result: 'hit' | 'miss' | 'bypass', savedNanoUsd?: number): void
  of(group: string): GroupCacheCounts
}

/** Counts per group id, made on first use; groups are the config's, so the map is bounded. */
export function createCacheStats(): CacheStats {
  const groups = new Map<string, GroupCacheCounts>()
  const of = (group: string) => {
    let counts = groups.get(group)
    if (counts === undefined) {
      counts = { hits: 0, misses: 0, bypasses: 0, savedNanoUsd: 0 }
      groups.set(group, counts)
    }
    return counts
  }
  return {
    of,
    count(group, result, savedNanoUsd = 0) {
      const counts = of(group)
      if (result === 'hit') {
        counts.hits += 1
        counts.savedNanoUsd += savedNanoUsd
      } else if (result === 'miss') counts.misses += 1
      else counts.bypasses += 1
    },
  }
}
