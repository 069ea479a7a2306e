import { GatewayError } from '../../errors'
import type { ExpiringCredential } from '../credentials/credential-cache'
import { readTokenAnswer } from '../credentials/token-answer'

/** The scope of an Entra token for Azure OpenAI (Cognitive Services). */
export const cognitiveServicesScope = 'https://cognitiveservices.azure.com/.default'

/** Entra ID's public cloud; sovereign clouds give their own `authorityHost`. */
export const defaultAuthorityHost = 'https://login.microsoftonline.com'

/** An app registration's client credentials (a service principal with a secret). */
export type EntraClientCredentials = {
  tenantId: string
  clientId: string
  clientSecret: string
  /** `https://login.microsoftonline.com` by default. */
  authorityHost?: string | undefined
}

/**
 * Fetches an Entra access token with the OAuth 2.0 client credentials grant: a form POST to
 * `{authorityHost}/{tenantId}/oauth2/v2.0/token`. A refusal (a wrong secret, an unknown client) is
 * the upstream's refusal of the gateway's credentials: a `GatewayError` carrying the token
 * endpoint's status and its `AADSTS` code, never the secret; an endpoint that cannot be reached is
 * an unreachable upstream. The caller caches the token (`createCredentialCache`).
 *
 * @see https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow
 */
export function entraClientCredentialsSource(
  credentials: EntraClientCredentials,
  options: { fetch?: typeof fetch | undefined; now: () => number },
): () => Promise<ExpiringCredential<string>> {
  const authority = (credentials.authorityHost ?? defaultAuthorityHost).replace(/\/+$/, '')
  const url = `${authority}/${encodeURIComponent(credentials.tenantId)}/oauth2/v2.0/token`
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init))
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
    scope: cognitiveServicesScope,
  }).toString()
  return async () => {
    let response: Response
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form,
        redirect: 'manual',
      })
    } catch (cause) {
      throw new GatewayError(
        'upstream_unreachable',
        `The Entra ID token endpoint of tenant ${credentials.tenantId} could not be reached.`,
        { cause },
      )
    }
    const { body, token } = await readTokenAnswer(response)
    if (token !== undefined) return { value: token, expiresAt: expiryOf(body, options.now()) }
    throw tokenRefused(
      `Entra ID gave no token to client ${credentials.clientId} of tenant ${credentials.tenantId}`,
      response.ok ? 401 : response.status,
      body,
    )
  }
}

/**
 * When a token answer says its token expires, in epoch milliseconds: `expires_on` (epoch seconds,
 * a number or a string, as managed identity endpoints send) first, else `expires_in` (seconds
 * from now); an hour when it says neither.
 */
export function expiryOf(body: Record<string, unknown>, now: number): number {
  const on = Number(body['expires_on'])
  if (Number.isFinite(on) && on > 0) return on * 1000
  const seconds = Number(body['expires_in'])
  return now + (Number.isFinite(seconds) && seconds > 0 ? seconds : 3600) * 1000
}

/**
 * A token endpoint's refusal, as the gateway's credentials refused upstream (a 502 whose upstream
 * status is the refusal's, so that failover treats it as a refused key). Only the OAuth error
 * name and the `AADSTS` code are kept: a description can quote what was sent.
 */
export function tokenRefused(what: string, status: number, body: Record<string, unknown>) {
  const name = typeof body['error'] === 'string' ? body['error'] : undefined
  const description = typeof body['error_description'] === 'string' ? body['error_description'] : ''
  const code = /AADSTS\d+/.exec(description)?.[0]
  const detail = [name, code].filter((part) => part !== undefined).join(', ')
  return new GatewayError(
    'upstream_error',
    `${what} (HTTP ${status}${detail === '' ? '' : `: ${detail}`}).`,
    { status: 502, upstream: { status: status === 400 ? 401 : status } },
  )
}
