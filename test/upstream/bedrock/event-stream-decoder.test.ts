import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { crc32 as zlibCrc32 } from 'node:zlib'
import { crc32 } from '../../../src/upstream/bedrock/crc32'
import {
  createEventStreamDecoder,
  EventStreamFormatError,
  type EventStreamMessage,
} from '../../../src/upstream/bedrock/event-stream-decoder'
import { chunkFrame, encodeFrame, exceptionFrame } from '../../helpers/bedrock/event-stream-encoder'

const text = (message: EventStreamMessage) => new TextDecoder().decode(message.payload)

/** Decodes `bytes` fed in the given pieces. */
function decodeIn(pieces: Uint8Array[]): EventStreamMessage[] {
  const decoder = createEventStreamDecoder()
  const messages = pieces.flatMap((piece) => decoder.push(piece))
  expect(decoder.pending).toBe(false)
  return messages
}

/** Cuts `bytes` at the given offsets. */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const sorted = [...new Set(offsets)]
    .filter((at) => at > 0 && at < bytes.length)
    .sort((a, b) => a - b)
  const pieces: Uint8Array[] = []
  let from = 0
  for (const at of sorted) {
    pieces.push(bytes.subarray(from, at))
    from = at
  }
  pieces.push(bytes.subarray(from))
  return pieces
}

const frames = [
  chunkFrame({ type: 'message_start', message: { id: 'msg_1' } }),
  exceptionFrame('throttlingException', 'Too many requests'),
  encodeFrame({ ':event-type': 'empty', flag: true, off: false }, ''),
  chunkFrame({
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: 'Zürich ✓' },
  }),
]
const stream = Buffer.concat(frames)

describe('the event-stream decoder', () => {
  it('computes the IEEE CRC-32 (the check value of "123456789")', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926)
  })

  it("reads the worked 146-byte frame of AWS's format", () => {
    const frame = encodeFrame(
      { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' },
      '{"bytes":"eyJ0eXBlIjoibWVzc2FnZV9zdG9wIn0=","p":"abcd"}',
    )
    expect(frame.length).toBe(146)
    expect([...frame.subarray(0, 12)]).toEqual([
      0, 0, 0, 0x92, 0, 0, 0, 0x4b, 0x2f, 0xea, 0x33, 0x01,
    ])
    expect([...frame.subarray(142)]).toEqual([0x42, 0xb7, 0x24, 0x80])
    const [message] = decodeIn([frame])
    expect(message!.headers).toEqual({
      ':event-type': 'chunk',
      ':content-type': 'application/json',
      ':message-type': 'event',
    })
    expect(text(message!)).toContain('eyJ0eXBlIjoibWVzc2FnZV9zdG9wIn0=')
  })

  it('decodes the same frames whatever the split: every single cut, and one byte at a time', () => {
    const whole = decodeIn([stream])
    expect(whole).toHaveLength(4)
    expect(whole[2]!.headers).toEqual({ ':event-type': 'empty', flag: true, off: false })
    expect(whole[2]!.payload.length).toBe(0)
    for (let at = 1; at < stream.length; at++) {
      expect(decodeIn(cut(stream, [at])).map(text)).toEqual(whole.map(text))
    }
    const bytes = [...stream].map((byte) => Uint8Array.of(byte))
    expect(decodeIn(bytes).map((message) => message.headers)).toEqual(
      whole.map((message) => message.headers),
    )
  })

  it('decodes the same frames at any set of cuts (property)', () => {
    const expected = decodeIn([stream]).map(text)
    fc.assert(
      fc.property(fc.array(fc.nat({ max: stream.length }), { maxLength: 30 }), (offsets) => {
        expect(decodeIn(cut(stream, offsets)).map(text)).toEqual(expected)
      }),
    )
  })

  it('reads every header type', () => {
    const headers = Buffer.concat([
      Buffer.from([1, 0x61, 2, 0xff]), // a: i8 -1
      Buffer.from([1, 0x62, 3, 0x01, 0x00]), // b: i16 256
      Buffer.from([1, 0x63, 4, 0, 0, 0x01, 0x00]), // c: i32 256
      Buffer.from([1, 0x64, 5, 0, 0, 0, 0, 0, 0, 0, 7]), // d: i64 7
      Buffer.from([1, 0x65, 6, 0, 2, 9, 8]), // e: bytes
      Buffer.from([1, 0x66, 8, 0, 0, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00]), // f: timestamp ms
      Buffer.concat([Buffer.from([1, 0x67, 9]), Buffer.alloc(16, 7)]), // g: uuid
    ])
    const [message] = decodeIn([rawFrame(headers, Buffer.from('{}'))])
    expect(message!.headers['a']).toBe(-1)
    expect(message!.headers['b']).toBe(256)
    expect(message!.headers['c']).toBe(256)
    expect(message!.headers['d']).toBe(7)
    expect([...(message!.headers['e'] as Uint8Array)]).toEqual([9, 8])
    expect(message!.headers['f']).toBe(0x018bcfe56800)
    expect((message!.headers['g'] as Uint8Array).length).toBe(16)
  })

  it('refuses a bad prelude CRC, a bad message CRC, a header type past 9 and headers past the frame', () => {
    const badPrelude = Buffer.from(frames[0]!)
    badPrelude[9]! ^= 1
    const badMessage = Buffer.from(frames[0]!)
    badMessage[20]! ^= 1
    const badType = rawFrame(Buffer.from([1, 0x61, 10, 0]), Buffer.from(''))
    const cutHeader = rawFrame(Buffer.from([5, 0x61]), Buffer.from(''))
    for (const [bytes, message] of [
      [badPrelude, /prelude CRC/],
      [badMessage, /message CRC/],
      [badType, /unknown type \(10\)/],
      [cutHeader, /cut short/],
    ] as const) {
      expect(() => createEventStreamDecoder().push(bytes)).toThrow(message)
      // Byte by byte too: the failure waits for the bytes that show it, and never crashes.
      const decoder = createEventStreamDecoder()
      expect(() => [...bytes].forEach((byte) => decoder.push(Uint8Array.of(byte)))).toThrow(
        EventStreamFormatError,
      )
    }
  })

  it('refuses an impossible length before allocating for it', () => {
    const prelude = Buffer.alloc(12)
    prelude.writeUInt32BE(0xfffffff0, 0)
    prelude.writeUInt32BE(0, 4)
    prelude.writeUInt32BE(zlibCrc32(prelude.subarray(0, 8)), 8)
    expect(() => createEventStreamDecoder().push(prelude)).toThrow(
      /impossible length \(4294967280\)/,
    )
    const tooShort = Buffer.alloc(12)
    tooShort.writeUInt32BE(8, 0)
    tooShort.writeUInt32BE(zlibCrc32(tooShort.subarray(0, 8)), 8)
    expect(() => createEventStreamDecoder().push(tooShort)).toThrow(/impossible length \(8\)/)
    const headersTooLong = Buffer.alloc(12)
    headersTooLong.writeUInt32BE(20, 0)
    headersTooLong.writeUInt32BE(5, 4)
    headersTooLong.writeUInt32BE(zlibCrc32(headersTooLong.subarray(0, 8)), 8)
    expect(() => createEventStreamDecoder().push(headersTooLong)).toThrow(/headers longer/)
  })

  it('holds a frame cut short: `pending` says the stream must not end there', () => {
    const decoder = createEventStreamDecoder()
    expect(decoder.push(stream.subarray(0, frames[0]!.length + 5))).toHaveLength(1)
    expect(decoder.pending).toBe(true)
  })
})

/** A frame of raw header bytes, with zlib's CRCs (from the test encoder's format). */
function rawFrame(headers: Buffer, payload: Buffer): Buffer {
  const total = 16 + headers.length + payload.length
  const frame = Buffer.alloc(total)
  frame.writeUInt32BE(total, 0)
  frame.writeUInt32BE(headers.length, 4)
  frame.writeUInt32BE(zlibCrc32(frame.subarray(0, 8)), 8)
  headers.copy(frame, 12)
  payload.copy(frame, 12 + headers.length)
  frame.writeUInt32BE(zlibCrc32(frame.subarray(0, total - 4)), total - 4)
  return frame
}
