import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { completeEnd, createChunkDecoder } from '../../src/internal/utf8-chunks'

/** Bytes cut into pieces at the given points (sorted, deduplicated, within the bytes). */
function cut(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const at = [...new Set(points.map((point) => point % (bytes.length + 1)))].sort((a, b) => a - b)
  const pieces: Uint8Array[] = []
  let start = 0
  for (const point of [...at, bytes.length]) {
    pieces.push(bytes.subarray(start, point))
    start = point
  }
  return pieces
}

function decodeInPieces(pieces: Uint8Array[]): string {
  const decoder = createChunkDecoder()
  return pieces.map((piece) => decoder.decode(piece)).join('') + decoder.end()
}

/** Text of every kind of character, a byte order mark among them, and bytes that are no UTF-8. */
const bodies = fc.oneof(
  fc
    .string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\ufeff', '\n', '中') })
    .map((text) => new TextEncoder().encode(text)),
  fc.uint8Array({ maxLength: 40 }),
  fc
    .array(
      fc.constantFrom(
        0xef,
        0xbb,
        0xbf,
        0xe2,
        0x82,
        0xac,
        0xf0,
        0x9f,
        0x98,
        0x80,
        0xc3,
        0xa9,
        0x41,
        0xf4,
        0x90,
        0xe0,
        0xed,
        0xa0,
        0xc0,
        0xff,
      ),
      { maxLength: 30 },
    )
    .map((bytes) => Uint8Array.from(bytes)),
)

describe('createChunkDecoder', () => {
  it('reads any bytes cut anywhere as one TextDecoder reads them whole', () => {
    fc.assert(
      fc.property(bodies, fc.array(fc.nat(), { maxLength: 8 }), (bytes, points) => {
        const whole = new TextDecoder().decode(bytes)
        expect(decodeInPieces(cut(bytes, points))).toBe(whole)
      }),
      { numRuns: 5000 },
    )
  })

  it('reads as the streaming TextDecoder does at every single cut', () => {
    const text = '\ufeffa€😀é中\ufeff'
    const bytes = new TextEncoder().encode(text)
    for (let point = 0; point <= bytes.length; point += 1) {
      const streaming = new TextDecoder()
      const expected =
        streaming.decode(bytes.subarray(0, point), { stream: true }) +
        streaming.decode(bytes.subarray(point), { stream: true }) +
        streaming.decode()
      expect(decodeInPieces([bytes.subarray(0, point), bytes.subarray(point)])).toBe(expected)
      expect(expected).toBe(text.slice(1))
    }
  })

  it('keeps only a character the chunk ends inside of', () => {
    const euro = [0xe2, 0x82, 0xac]
    expect(completeEnd(Uint8Array.from([0x41, ...euro]))).toBe(4)
    expect(completeEnd(Uint8Array.from([0x41, 0xe2, 0x82]))).toBe(1)
    expect(completeEnd(Uint8Array.from([0x41, 0xf0, 0x9f, 0x98]))).toBe(1)
    expect(completeEnd(Uint8Array.from([0x41, 0x80]))).toBe(2)
    expect(completeEnd(Uint8Array.from([0xff]))).toBe(1)
    expect(completeEnd(new Uint8Array(0))).toBe(0)
  })
})
