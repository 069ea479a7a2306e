/**
 * A 64-bit FNV-1a digest of a string, one round per UTF-16 code unit (the unit, not its bytes, is
 * XORed in: half the rounds of byte-wise FNV-1a), as 16 hex digits. It tells whether a text came
 * back exactly as it went out — an edit, a truncation, a normalised line ending — in linear time
 * (about 10 ns a character) and without WebCrypto's promises; it is no MAC, and nothing relies on
 * it against a forger (ADR 0017).
 *
 * @example
 * textDigest('') // 'cbf29ce484222325'
 * @see http://www.isthe.com/chongo/tech/comp/fnv/index.html
 */
export function textDigest(text: string): string {
  // The 64-bit state in four 16-bit limbs, least significant first: the offset basis.
  let h0 = 0x2325
  let h1 = 0x8422
  let h2 = 0x9ce4
  let h3 = 0xcbf2
  for (let index = 0; index < text.length; index += 1) {
    h0 ^= text.charCodeAt(index)
    // × the FNV prime 2^40 + 0x1b3: each limb times 0x1b3, plus the limbs two below times 2^8.
    const t0 = h0 * 0x1b3
    const t1 = h1 * 0x1b3 + (t0 >>> 16)
    const t2 = h2 * 0x1b3 + h0 * 0x100 + (t1 >>> 16)
    const t3 = h3 * 0x1b3 + h1 * 0x100 + (t2 >>> 16)
    h0 = t0 & 0xffff
    h1 = t1 & 0xffff
    h2 = t2 & 0xffff
    h3 = t3 & 0xffff
  }
  return [h3, h2, h1, h0].map((limb) => limb.toString(16).padStart(4, '0')).join('')
}
