const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * A random string of `length` characters from `characters` (default `[A-Za-z0-9]`), drawn from
 * Web Crypto with rejection sampling so that every character is equally likely.
 */
export function randomToken(length: number, characters: string = alphabet): string {
  // The largest multiple of the alphabet size below 256: bytes at or above it are redrawn.
  const limit = 256 - (256 % characters.length)
  let text = ''
  while (text.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2))
    for (const byte of bytes) {
      if (byte >= limit) continue
      text += characters[byte % characters.length]
      if (text.length === length) break
    }
  }
  return text
}

/** Lowercase letters and digits: public key ids, which appear in logs and URLs. */
export const lowercaseAlphanumeric = 'abcdefghijklmnopqrstuvwxyz0123456789'
