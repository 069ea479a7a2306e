/**
 * A 64-bit digest of a string: two 32-bit multiplicative lanes over its UTF-16 code units —
 * FNV-1a's (offset basis 0x811c9dc5, prime 0x01000193) and one with MurmurHash2's multiplier
 * (0x5bd1e995) — as 16 hex digits. It tells whether a text came back exactly as it went out — an
 * edit, a truncation, a normalised line ending — in linear time (about 6 ns a character, one
 * `Math.imul` per lane) and without WebCrypto's promises; it is no MAC, and nothing relies on it
 * against a forger (ADR 0018).
 *
 * @example
 * textDigest('') // '811c9dc59ce4cbf2'
 * @see http://www.isthe.com/chongo/tech/comp/fnv/index.html
 */
export function textDigest(text: string): string {
  let fnv = 0x811c9dc5
  let murmur = 0x9ce4cbf2
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index)
    fnv = Math.imul(fnv ^ unit, 0x01000193)
    murmur = Math.imul(murmur ^ unit, 0x5bd1e995)
  }
  return hex(fnv) + hex(murmur)
}

function hex(lane: number): string {
  return (lane >>> 0).toString(16).padStart(8, '0')
}
