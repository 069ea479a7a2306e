/**
 * Rendezvous (highest random weight) hashing: each session ranks every upstream by a hash of the
 * pair, and goes to the best-ranked one that can take it. Adding an upstream moves only the
 * sessions that now rank it first (about 1/n of them); removing or skipping one moves only its
 * own sessions, each to its second choice, and they come back when it does. No ring, no table:
 * a pick costs one hash mix per upstream.
 *
 * @see https://en.wikipedia.org/wiki/Rendezvous_hashing
 */

/** The 32-bit FNV-1a hash of a string's UTF-16 code units: fast, synchronous, stable. */
export function hashText(text: string): number {
  let hash = 0x811c9dc5
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/** murmur3's 32-bit finaliser over two hashes: avalanches, so every bit of both counts. */
function mix(left: number, right: number): number {
  let hash = (left ^ Math.imul(right, 0x9e3779b1)) >>> 0
  hash ^= hash >>> 16
  hash = Math.imul(hash, 0x85ebca6b)
  hash ^= hash >>> 13
  hash = Math.imul(hash, 0xc2b2ae35)
  hash ^= hash >>> 16
  return hash >>> 0
}

/**
 * The rank of one upstream for one session: weighted rendezvous, `-weight / ln(u)` with `u` the
 * pair's hash in (0, 1), so an upstream of weight 2 ranks first for twice as many sessions.
 *
 * @param sessionHash `hashText` of the session hint.
 * @param upstreamHash `hashText` of the upstream's id.
 */
export function rendezvousScore(sessionHash: number, upstreamHash: number, weight: number): number {
  const unit = (mix(sessionHash, upstreamHash) + 0.5) / 4294967296
  return -weight / Math.log(unit)
}
