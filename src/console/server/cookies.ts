/** The value of cookie `name` in a `Cookie` header, or `undefined`. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (header === null) return undefined
  for (const part of header.split(';')) {
    const at = part.indexOf('=')
    if (at < 0) continue
    if (part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
  }
  return undefined
}

/** Where and how the console's cookies are set. */
export type CookieScope = { path: string; secure: boolean }

/**
 * A `Set-Cookie` value: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends
 * it), limited to the console's path, and Secure when the console is served over https.
 * `maxAgeSeconds` 0 deletes the cookie.
 */
export function cookieHeader(
  name: string,
  value: string,
  scope: CookieScope,
  maxAgeSeconds: number,
): string {
  return [
    `${name}=${value}`,
    `Path=${scope.path}`,
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(scope.secure ? ['Secure'] : []),
  ].join('; ')
}
