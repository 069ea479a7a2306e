import { isJsonObject, parseJson } from '../internal/json'
import {
  createCredentialCache,
  type CredentialCache,
} from '../upstream/credentials/credential-cache'
import { createSecretScrubber, type SecretScrubber } from '../upstream/secret-scrubber'
import type { McpOAuthConfig, McpServerConfig } from './mcp-types'

/** The credentials of one upstream server: its headers, and a scrubber of every secret in them. */
export type UpstreamAuth = {
  /** The headers of the next upstream call (a cached or freshly fetched OAuth token). */
  headers(): Promise<Record<string, string>>
  /** Drops a token the server refused (401), so the next call fetches a fresh one. */
  refused(headers: Record<string, string>): void
  /** Removes the server's static header values, OAuth secret and tokens from text. */
  scrub: SecretScrubber
}

/**
 * The credentials of a server: its static `headers`, and with `oauth` a bearer token from the
 * client-credentials grant, cached and refreshed single-flight by the shared credential cache
 * (one token endpoint call for a burst of calls; a refusal invalidates it). The client's own
 * credential is never forwarded (MCP forbids token passthrough).
 */
export function createUpstreamAuth(
  server: McpServerConfig,
  fetcher: typeof fetch,
  now: () => number,
): UpstreamAuth {
  const fixed = { ...server.headers }
  const oauth = server.oauth
  const tokens = oauth === undefined ? undefined : tokenCache(oauth, fetcher, now)
  const staticSecrets = [...Object.values(fixed), oauth?.clientSecret ?? ''].filter(Boolean)
  let scrubber = createSecretScrubber(staticSecrets)
  let scrubbedToken: string | undefined
  return {
    async headers() {
      if (tokens === undefined) return fixed
      const token = await tokens.get()
      if (token !== scrubbedToken) {
        scrubbedToken = token
        scrubber = createSecretScrubber([...staticSecrets, token])
      }
      return { ...fixed, authorization: `Bearer ${token}` }
    },
    refused(headers) {
      const value = headers['authorization']
      if (tokens !== undefined && value !== undefined) tokens.invalidate(value.slice(7))
    },
    scrub: (text) => scrubber(text),
  }
}

/** Tokens of a client-credentials grant (RFC 6749 §4.4), the client authenticated by HTTP Basic. */
function tokenCache(
  oauth: McpOAuthConfig,
  fetcher: typeof fetch,
  now: () => number,
): CredentialCache<string> {
  return createCredentialCache(
    async () => {
      const form = new URLSearchParams({ grant_type: 'client_credentials' })
      if (oauth.scope !== undefined) form.set('scope', oauth.scope)
      if (oauth.resource !== undefined) form.set('resource', oauth.resource)
      const basic = btoa(
        `${encodeURIComponent(oauth.clientId)}:${encodeURIComponent(oauth.clientSecret)}`,
      )
      const response = await fetcher(oauth.tokenUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          authorization: `Basic ${basic}`,
        },
        body: form.toString(),
      })
      const text = await response.text()
      const parsed = parseJson(text)
      const body = parsed.ok && isJsonObject(parsed.value) ? parsed.value : {}
      const token = body['access_token']
      if (!response.ok || typeof token !== 'string' || token === '') {
        // The endpoint's answer may echo the secret: only its status is kept.
        throw new Error(`The token endpoint answered ${response.status} without an access token.`)
      }
      const expiresIn = body['expires_in']
      return {
        value: token,
        expiresAt:
          typeof expiresIn === 'number' && expiresIn > 0 ? now() + expiresIn * 1000 : undefined,
      }
    },
    { now, refreshMarginMs: 60_000 },
  )
}
