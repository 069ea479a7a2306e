/** Unpadded base64url of bytes, as a JWT's parts are written (RFC 7515 §2). */
export function base64UrlOfBytes(bytes: Uint8Array): string {
  let binary = ''
  for (let index = 0; index < bytes.length; index += 1) {
    binary += String.fromCharCode(bytes[index]!)
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** Unpadded base64url of a value's JSON text: a JWT's header or claims. */
export function base64UrlOfJson(value: unknown): string {
  return base64UrlOfBytes(new TextEncoder().encode(JSON.stringify(value)))
}

/** The bytes of a PEM block's base64 body (its `-----BEGIN …-----` lines and spaces dropped). */
export function pemBytes(pem: string): Uint8Array<ArrayBuffer> {
  const body = pem.replace(/-----[^-]+-----|\s/g, '')
  const binary = atob(body)
  const bytes = new Uint8Array(binary.length)
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index)
  return bytes
}
