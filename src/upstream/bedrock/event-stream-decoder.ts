import { crc32 } from './crc32'

/**
 * A decoder of AWS's binary event stream (`application/vnd.amazon.eventstream`), the framing of
 * Bedrock's InvokeModelWithResponseStream and ConverseStream answers. Each frame:
 *
 * ```
 * u32 total length | u32 headers length | u32 prelude CRC (of the 8 bytes before it)
 * headers | payload | u32 message CRC (of every byte before it)
 * header: u8 name length | name | u8 type | value
 * ```
 *
 * Hand-written rather than `@smithy/eventstream-codec`: that package's entry imports
 * `node:stream` (only its browser build avoids it), it trusts `total_length` before checking the
 * prelude CRC, and it would be the core's second dependency for ~150 lines. Here the prelude CRC
 * is checked before the length is trusted, the length is bounded before anything is allocated for
 * it, and the message CRC is checked before a header is read.
 *
 * @module
 */

/** A header's value: a string, bytes (and uuids), a number (integers, i64 and timestamps in ms), a boolean. */
export type EventStreamHeaderValue = string | number | boolean | Uint8Array

/** One decoded frame: its headers by name and its payload bytes. */
export type EventStreamMessage = {
  readonly headers: Readonly<Record<string, EventStreamHeaderValue>>
  readonly payload: Uint8Array
}

/** A frame the decoder could not read: a bad CRC, an impossible length, an unknown header type. */
export class EventStreamFormatError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'EventStreamFormatError'
  }
}

/** Options of the decoder. */
export type EventStreamDecoderOptions = {
  /** The largest frame accepted (AWS caps a chunk's payload at 1 MB; the default leaves room). */
  maxFrameBytes?: number | undefined
}

/** Decodes frames from chunks split anywhere. */
export type EventStreamDecoder = {
  /**
   * Feeds the next chunk; returns the frames it completed, in order, or hands each to `each` as
   * it is decoded (then the frames before a bad one are handled before the throw).
   */
  push(chunk: Uint8Array, each?: (message: EventStreamMessage) => void): EventStreamMessage[]
  /** True while part of a frame is held: the stream must not end here. */
  readonly pending: boolean
}

const preludeBytes = 12
const minFrameBytes = 16
const defaultMaxFrameBytes = 16 * 1024 * 1024
const utf8 = new TextDecoder()

/**
 * A decoder that keeps the bytes of an unfinished frame between pushes.
 *
 * @throws EventStreamFormatError from `push` for a frame it cannot read
 */
export function createEventStreamDecoder(
  options: EventStreamDecoderOptions = {},
): EventStreamDecoder {
  const maxFrameBytes = options.maxFrameBytes ?? defaultMaxFrameBytes
  // The unfinished frame: `held` bytes of `buffer` (once the prelude is known, sized to the frame).
  let buffer: Uint8Array = new Uint8Array(0)
  let held = 0
  return {
    get pending() {
      return held > 0
    },
    push(chunk, each) {
      const messages: EventStreamMessage[] = []
      const emit = each ?? ((message: EventStreamMessage) => void messages.push(message))
      let input = chunk
      // Complete the held frame first, copying only what it still needs: its prelude, then the
      // rest of the length the prelude gives.
      while (held > 0 && input.length > 0) {
        const size = heldNeeds(buffer, held, maxFrameBytes)
        const take = Math.min(size - held, input.length)
        buffer = ensureCapacity(buffer, held, size)
        buffer.set(input.subarray(0, take), held)
        held += take
        input = input.subarray(take)
        if (held >= preludeBytes && held === frameLength(buffer, maxFrameBytes)) {
          emit(decodeFrame(buffer.subarray(0, held)))
          held = 0
          buffer = new Uint8Array(0)
        }
      }
      if (held > 0) return messages
      // Whole frames straight from the chunk, without a copy.
      let offset = 0
      while (input.length - offset >= preludeBytes) {
        const total = frameLength(input.subarray(offset), maxFrameBytes)
        if (input.length - offset < total) break
        emit(decodeFrame(input.subarray(offset, offset + total)))
        offset += total
      }
      if (offset < input.length) {
        const rest = input.subarray(offset)
        buffer = new Uint8Array(
          rest.length >= preludeBytes ? frameLength(rest, maxFrameBytes) : preludeBytes,
        )
        buffer.set(rest)
        held = rest.length
      }
      return messages
    },
  }
}

/** How many bytes the held frame needs in all: its prelude first, then its whole length. */
function heldNeeds(buffer: Uint8Array, held: number, maxFrameBytes: number): number {
  return held < preludeBytes ? preludeBytes : frameLength(buffer, maxFrameBytes)
}

function ensureCapacity(buffer: Uint8Array, held: number, size: number): Uint8Array {
  if (buffer.length >= size) return buffer
  const grown = new Uint8Array(size)
  grown.set(buffer.subarray(0, held))
  return grown
}

/**
 * The length of the frame whose prelude starts `bytes`, checked: the prelude CRC first (a length
 * is not trusted before it), then the bounds.
 */
function frameLength(bytes: Uint8Array, maxFrameBytes: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, preludeBytes)
  const total = view.getUint32(0)
  const headers = view.getUint32(4)
  if (crc32(bytes, 0, 8) !== view.getUint32(8)) {
    throw new EventStreamFormatError('An event-stream frame has a bad prelude CRC.')
  }
  if (total < minFrameBytes || total > maxFrameBytes) {
    throw new EventStreamFormatError(`An event-stream frame has an impossible length (${total}).`)
  }
  if (headers > total - minFrameBytes) {
    throw new EventStreamFormatError('An event-stream frame has headers longer than the frame.')
  }
  return total
}

/** A whole frame, its length already checked: the message CRC, then the headers and payload. */
function decodeFrame(frame: Uint8Array): EventStreamMessage {
  const view = new DataView(frame.buffer, frame.byteOffset, frame.length)
  const end = frame.length - 4
  if (crc32(frame, 0, end) !== view.getUint32(end)) {
    throw new EventStreamFormatError('An event-stream frame has a bad message CRC.')
  }
  const headersEnd = preludeBytes + view.getUint32(4)
  return {
    headers: decodeHeaders(frame, view, headersEnd),
    payload: frame.subarray(headersEnd, end),
  }
}

function decodeHeaders(
  frame: Uint8Array,
  view: DataView,
  end: number,
): Record<string, EventStreamHeaderValue> {
  const headers: Record<string, EventStreamHeaderValue> = Object.create(null)
  let at = preludeBytes
  const need = (bytes: number) => {
    if (at + bytes > end) throw new EventStreamFormatError('An event-stream header is cut short.')
  }
  while (at < end) {
    need(1)
    const nameLength = frame[at]!
    need(1 + nameLength + 1)
    const name = text(frame, at + 1, at + 1 + nameLength)
    const type = frame[at + 1 + nameLength]!
    at += 2 + nameLength
    let value: EventStreamHeaderValue
    switch (type) {
      case 0:
      case 1:
        value = type === 0
        break
      case 2:
        need(1)
        value = view.getInt8(at)
        at += 1
        break
      case 3:
        need(2)
        value = view.getInt16(at)
        at += 2
        break
      case 4:
        need(4)
        value = view.getInt32(at)
        at += 4
        break
      case 5:
      case 8:
        // i64 and timestamps (ms): exact as numbers up to 2^53, far beyond any real one.
        need(8)
        value = Number(view.getBigInt64(at))
        at += 8
        break
      case 6:
      case 7: {
        need(2)
        const length = view.getUint16(at)
        need(2 + length)
        const bytes = frame.subarray(at + 2, at + 2 + length)
        value = type === 7 ? text(frame, at + 2, at + 2 + length) : bytes
        at += 2 + length
        break
      }
      case 9:
        need(16)
        value = frame.subarray(at, at + 16)
        at += 16
        break
      default:
        throw new EventStreamFormatError(`An event-stream header has an unknown type (${type}).`)
    }
    headers[name] = value // lookup-safe: a prototype-less record
  }
  return headers
}

/**
 * The UTF-8 text of `frame[start..end)`. Header names and values are short ASCII (`:event-type`,
 * `chunk`): read without a `TextDecoder` call, which costs more than the whole CRC of a frame.
 */
function text(frame: Uint8Array, start: number, end: number): string {
  if (end - start > 64) return utf8.decode(frame.subarray(start, end))
  let ascii = ''
  for (let at = start; at < end; at++) {
    const byte = frame[at]!
    if (byte >= 0x80) return utf8.decode(frame.subarray(start, end))
    ascii += String.fromCharCode(byte)
  }
  return ascii
}
