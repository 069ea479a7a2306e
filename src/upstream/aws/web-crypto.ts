/**
 * The few Web Crypto operations SigV4 needs (the global `crypto.subtle` of Node 20, Bun, Deno and
 * Workers), and the hex form of their results.
 */

const encoder = new TextEncoder()

/** Lower-case hex of each byte value, so that hexing a digest is one lookup per byte. */
const hexByte = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

/** The lower-case hex form of `bytes`. */
export function hexOf(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)
  let hex = ''
  for (const byte of view) hex += hexByte[byte]
  return hex
}

/** The hex SHA-256 of a string's UTF-8 bytes. */
export async function sha256Hex(text: string): Promise<string> {
  return hexOf(await crypto.subtle.digest('SHA-256', encoder.encode(text)))
}

/** An HMAC-SHA256 key of raw bytes. */
export function hmacKey(raw: BufferSource): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
}

/** The HMAC-SHA256 of a string's UTF-8 bytes under `key`. */
export function hmacSign(key: CryptoKey, text: string): Promise<ArrayBuffer> {
  return crypto.subtle.sign('HMAC', key, encoder.encode(text))
}
