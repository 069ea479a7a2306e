/**
 * "Did you mean": the known field an unknown one was probably meant to be (`baseURL` for
 * `baseUrl`, `api_key` for `apiKey`, `upstream` for `upstreams`).
 */

/** The unknown keys of one object that are near misses, each with the known key it is near. */
export type NearMisses = ReadonlyMap<string, string>

/**
 * The near misses among `unknown` keys of `object`, whose schema knows `known`. A known key the
 * object already has is never suggested, nor one key for two unknown ones.
 */
export function findNearMisses(
  unknown: readonly string[],
  known: readonly string[],
  object: object,
): NearMisses {
  const misses = new Map<string, string>()
  const taken = new Set<string>()
  for (const key of unknown) {
    const candidates = known.filter((name) => !Object.hasOwn(object, name) && !taken.has(name))
    const near = nearestKey(key, candidates)
    if (near === undefined) continue
    misses.set(key, near)
    taken.add(near)
  }
  return misses
}

/**
 * The known key `key` most likely misspells: the same letters but for case, `_` and `-`
 * (`base_url`, `BASEURL`), else the fewest edits (insert, delete, replace, swap two neighbours),
 * at most 1 for keys of up to 5 characters and 2 for longer ones. Ties go to the first known key.
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const folded = fold(key)
  const same = known.find((name) => fold(name) === folded)
  if (same !== undefined) return same
  const limit = key.length <= 5 ? 1 : 2
  let best: string | undefined
  let bestDistance = limit + 1
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase(), bestDistance)
    if (distance < bestDistance) {
      best = name
      bestDistance = distance
    }
  }
  return best
}

/** The message of zod's `unrecognized_keys` issue, with the near misses named. */
export function unrecognizedKeysMessage(keys: readonly string[], misses: NearMisses): string {
  const listed = keys.map((key) => {
    const near = misses.get(key)
    return near === undefined ? `"${key}"` : `"${key}" (did you mean "${near}"?)`
  })
  return `Unrecognized key${keys.length > 1 ? 's' : ''}: ${listed.join(', ')}`
}

function fold(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, '')
}

/**
 * Optimal string alignment distance of `a` and `b`; any value of `stop` or more means "too far"
 * (the rows stop being computed once every cell of one reaches it).
 */
function editDistance(a: string, b: string, stop: number): number {
  if (Math.abs(a.length - b.length) >= stop) return stop
  let before: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i]
    let rowBest = i
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let cell = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        cell = Math.min(cell, before[j - 2]! + 1)
      current.push(cell)
      rowBest = Math.min(rowBest, cell)
    }
    if (rowBest >= stop) return stop
    before = previous
    previous = current
  }
  return Math.min(previous[b.length]!, stop)
}
