/**
 * The request's URL, or `undefined` when it does not parse. A WHATWG `Request` always carries one
 * that parses, but a runtime or an adapter may hand the gateway one that does not: the Node bridge
 * does so for a malformed `Host` header, so that the gateway answers it in the route's shape.
 */
export function parseRequestUrl(raw: string): URL | undefined {
  try {
    return new URL(raw)
  } catch {
    return undefined
  }
}

/**
 * The path of a URL that does not parse, read as far as it can be (enough to pick the route's error
 * shape): what follows the authority up to a `?` or `#`, or the whole of a relative reference.
 */
export function pathOfUnparsedUrl(raw: string): string {
  let start = 0
  if (!raw.startsWith('/')) {
    const authority = raw.indexOf('://')
    if (authority < 0) return '/'
    const end = raw.slice(authority + 3).search(/[/?#]/)
    if (end < 0 || raw[authority + 3 + end] !== '/') return '/'
    start = authority + 3 + end
  }
  const end = raw.slice(start).search(/[?#]/)
  return end < 0 ? raw.slice(start) : raw.slice(start, start + end)
}
