const encoder = new TextEncoder()

/**
 * Text a client sent, made safe to put in a response header: characters outside printable ASCII
 * (and `%` itself) are percent-encoded as UTF-8 — a lone surrogate as U+FFFD — so no client string
 * can make `Headers.set` throw or split the header, and the value is cut at `maxLength`
 * characters (ending in `...`) so a long list cannot pass a server's header size limit.
 */
export function headerText(value: string, maxLength = 1024): string {
  let out = ''
  for (const char of value) {
    const code = char.codePointAt(0)!
    if (code >= 0x20 && code <= 0x7e && char !== '%') out += char
    else {
      const loneSurrogate = code >= 0xd800 && code <= 0xdfff
      for (const byte of encoder.encode(loneSurrogate ? '\ufffd' : char))
        out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
    }
    if (out.length > maxLength) return `${out.slice(0, maxLength - 3)}...`
  }
  return out
}
