import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { textDigest } from '../../src/internal/text-digest'

/** The two lanes with BigInt arithmetic: the reference `Math.imul` must match. */
function reference(text: string): string {
  const lane = (basis: bigint, prime: bigint) => {
    let hash = basis
    for (let index = 0; index < text.length; index += 1)
      hash = ((hash ^ BigInt(text.charCodeAt(index))) * prime) & 0xffffffffn
    return hash.toString(16).padStart(8, '0')
  }
  return lane(0x811c9dc5n, 0x01000193n) + lane(0x9ce4cbf2n, 0x5bd1e995n)
}

describe('textDigest', () => {
  it('is FNV-1a 32 and a Murmur-multiplier lane over code units, for any text', () => {
    expect(textDigest('')).toBe('811c9dc59ce4cbf2')
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(textDigest(text)).toBe(reference(text))
      }),
      { numRuns: 500 },
    )
  })

  it('tells apart a text and any one-character edit, cut or addition of it', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 1 }),
        (text, at, char) => {
          const index = at % text.length
          const edits = [
            text.slice(0, index) + char + text.slice(index + 1),
            text.slice(0, index) + text.slice(index + 1),
            text.slice(0, index) + char + text.slice(index),
          ]
          for (const edited of edits)
            if (edited !== text) expect(textDigest(edited)).not.toBe(textDigest(text))
        },
      ),
      { numRuns: 2000 },
    )
    const text = 'Read the file.\nThen fix it.'
    for (const other of [
      'Read the file.\r\nThen fix it.',
      `${text} `,
      'Read the file.\nThen fix It.',
    ])
      expect(textDigest(other)).not.toBe(textDigest(text))
  })
})
