import { GatewayError } from '../../errors'
import type { ExpiringCredential } from '../credentials/credential-cache'
import { readTokenAnswer } from '../credentials/token-answer'

/** The OAuth scope of every Google Cloud API, Vertex AI's included. */
export const cloudPlatformScope = 'https://www.googleapis.com/auth/cloud-platform'

/** Google's token endpoint: the default `token_uri` of a key and of a refresh grant. */
export const googleTokenUrl = 'https://oauth2.googleapis.com/token'

/** How long a token fetch may take before it fails (and the cache tries again on the next call). */
export const tokenFetchTimeoutMs = 10_000

/**
 * Reads a Google token answer (`{"access_token","expires_in","token_type"}`, from a token
 * endpoint or a metadata server) into a credential that expires `expires_in` seconds from `now`.
 * A refusal (`{"error","error_description"}`) or an answer without a token is an upstream error
 * that names `what` and Google's reason, never the request's secrets.
 */
export async function readGoogleToken(
  response: Response,
  what: string,
  now: () => number,
): Promise<ExpiringCredential<string>> {
  const { body, token } = await readTokenAnswer(response)
  if (token === undefined) {
    const reason = [body['error'], body['error_description']]
      .filter((part) => typeof part === 'string' && part !== '')
      .join(': ')
    throw new GatewayError(
      'upstream_error',
      `${what} answered ${response.status} without an access token${reason === '' ? '' : ` (${reason.slice(0, 300)})`}.`,
    )
  }
  const lifetime = Number(body['expires_in'])
  return {
    value: token,
    expiresAt: Number.isFinite(lifetime) && lifetime > 0 ? now() + lifetime * 1000 : undefined,
  }
}

/** A form POST to a token endpoint, with the token fetch timeout. */
export function postTokenForm(
  fetcher: typeof fetch,
  url: string,
  form: Record<string, string>,
): Promise<Response> {
  return fetcher(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
    signal: AbortSignal.timeout(tokenFetchTimeoutMs),
  })
}
