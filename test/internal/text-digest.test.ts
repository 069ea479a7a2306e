import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { textDigest } from '../../src/internal/text-digest'

/** FNV-1a 64 over UTF-16 code units, with BigInt: the reference the limb arithmetic must match. */
function reference(text: string): string {
  let hash = 0xcbf29ce484222325n
  for (let index = 0; index < text.length; index += 1) {
    hash ^= BigInt(text.charCodeAt(index))
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn
  }
  return hash.toString(16).padStart(16, '0')
}

describe('textDigest', () => {
  it('is FNV-1a 64 over code units, for any text (lone surrogates too)', () => {
    expect(textDigest('')).toBe('cbf29ce484222325')
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(textDigest(text)).toBe(reference(text))
      }),
      { numRuns: 500 },
    )
  })

  it('tells apart texts that differ in one character, a line ending or a trailing space', () => {
    const text = 'Read the file.\nThen fix it.'
    for (const other of [
      'Read the file.\r\nThen fix it.',
      `${text} `,
      'Read the file.\nThen fix It.',
    ])
      expect(textDigest(other)).not.toBe(textDigest(text))
  })
})
