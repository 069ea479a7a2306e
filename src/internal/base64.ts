/**
 * UTF-8 text ↔ base64, for the opaque carriers the gateway hands to clients (reasoning blobs,
 * thought signatures). Decoding never throws: text that is not canonical base64 of valid UTF-8
 * reads as `undefined`, so a client's tampering is a clear refusal, not a crash.
 *
 * @module
 */

/** Text as the standard base64 of its UTF-8 bytes, padded (`+`, `/`, `=`). */
export function utf8ToBase64(text: string): string {
  let binary = ''
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/** Text as the URL-safe base64 of its UTF-8 bytes, unpadded (`-`, `_`). */
export function utf8ToBase64Url(text: string): string {
  return utf8ToBase64(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

/** The text standard, padded base64 carries, or `undefined` when it is not that of valid UTF-8. */
export function base64ToUtf8(encoded: string): string | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined
  return decodeBinary(encoded)
}

/** The text URL-safe, unpadded base64 carries, or `undefined` when it is not that of valid UTF-8. */
export function base64UrlToUtf8(encoded: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(encoded) || encoded.length % 4 === 1) return undefined
  return decodeBinary(encoded.replaceAll('-', '+').replaceAll('_', '/'))
}

function decodeBinary(encoded: string): string | undefined {
  try {
    const binary = atob(encoded)
    return new TextDecoder('utf-8', { fatal: true }).decode(
      Uint8Array.from(binary, (char) => char.charCodeAt(0)),
    )
  } catch {
    return undefined
  }
}
