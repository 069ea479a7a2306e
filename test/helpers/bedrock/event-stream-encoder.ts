import { crc32 } from 'node:zlib'

/**
 * AWS's event-stream encoding, written for the tests independently of the gateway's decoder (its
 * CRC is zlib's, not the decoder's table): frames of string headers and a payload, as Bedrock
 * sends them.
 */

/** A header value the encoder writes: a string (type 7), or a boolean (types 0 and 1). */
export type FrameHeaders = Record<string, string | boolean>

/** One frame: `u32 total | u32 headers length | u32 prelude CRC | headers | payload | u32 CRC`. */
export function encodeFrame(headers: FrameHeaders, payload: Uint8Array | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : Buffer.from(payload)
  const parts: Buffer[] = []
  for (const [name, value] of Object.entries(headers)) {
    const nameBytes = Buffer.from(name)
    if (typeof value === 'boolean') {
      parts.push(Buffer.from([nameBytes.length]), nameBytes, Buffer.from([value ? 0 : 1]))
      continue
    }
    const valueBytes = Buffer.from(value)
    const length = Buffer.alloc(2)
    length.writeUInt16BE(valueBytes.length)
    parts.push(Buffer.from([nameBytes.length]), nameBytes, Buffer.from([7]), length, valueBytes)
  }
  const headerBytes = Buffer.concat(parts)
  const total = 16 + headerBytes.length + body.length
  const frame = Buffer.alloc(total)
  frame.writeUInt32BE(total, 0)
  frame.writeUInt32BE(headerBytes.length, 4)
  frame.writeUInt32BE(crc32(frame.subarray(0, 8)), 8)
  headerBytes.copy(frame, 12)
  body.copy(frame, 12 + headerBytes.length)
  frame.writeUInt32BE(crc32(frame.subarray(0, total - 4)), total - 4)
  return frame
}

/** An InvokeModel stream `chunk` carrying one Anthropic event (its JSON), with AWS's padding. */
export function chunkFrame(event: object): Buffer {
  const bytes = Buffer.from(JSON.stringify(event)).toString('base64')
  return encodeFrame(
    { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' },
    JSON.stringify({
      bytes,
      p: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123'.slice(
        0,
        (bytes.length % 20) + 2,
      ),
    }),
  )
}

/** A ConverseStream event frame (`messageStart`, `contentBlockDelta`, …). */
export function converseFrame(eventType: string, payload: object): Buffer {
  return encodeFrame(
    { ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' },
    JSON.stringify({ ...payload, p: 'abcd' }),
  )
}

/** An exception frame (`throttlingException`, `modelStreamErrorException`, …). */
export function exceptionFrame(exceptionType: string, message: string): Buffer {
  return encodeFrame(
    {
      ':exception-type': exceptionType,
      ':content-type': 'application/json',
      ':message-type': 'exception',
    },
    JSON.stringify({ message }),
  )
}

/** An `error` frame, whose code and message are headers. */
export function errorFrame(code: string, message: string): Buffer {
  return encodeFrame(
    { ':error-code': code, ':error-message': message, ':message-type': 'error' },
    '',
  )
}
