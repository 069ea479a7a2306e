/**
 * A connection URL as it may be printed: its password replaced by `****`, in the user info or as a
 * `password` parameter (libpq reads both), and a text that is not a URL withheld whole (it might be
 * a secret pasted in the wrong place).
 */
export function redactUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return '(not a URL)'
  }
  if (parsed.password !== '') parsed.password = '****'
  if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '****')
  return parsed.href
}
