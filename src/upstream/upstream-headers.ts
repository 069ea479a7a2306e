/**
 * The headers an upstream call starts from: JSON content type plus the client headers on the
 * allow-list. Credential headers can never be on the list (the config schema refuses them), so
 * the client's key never reaches an upstream.
 */
export function buildUpstreamHeaders(client: Headers, allowList: readonly string[]): Headers {
  const headers = new Headers({ 'content-type': 'application/json' })
  for (const name of allowList) {
    const value = client.get(name)
    if (value !== null) headers.set(name, value)
  }
  return headers
}
