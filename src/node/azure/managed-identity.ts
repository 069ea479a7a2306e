import { expiryOf } from '../../upstream/azure/entra-token'
import type { ExpiringCredential } from '../../upstream/credentials/credential-cache'
import { readTokenAnswer } from '../../upstream/credentials/token-answer'

/** Options of `azureManagedIdentity`. */
export type AzureManagedIdentityOptions = {
  /** Where `IDENTITY_ENDPOINT`, `IDENTITY_HEADER` and `AZURE_CLIENT_ID` are read: `process.env`. */
  env?: Readonly<Record<string, string | undefined>> | undefined
  /** The fetch the endpoints are asked with: the global one. */
  fetch?: typeof fetch | undefined
  /** How long the instance metadata service gets to answer: 3 s (off Azure it never does). */
  imdsTimeoutMs?: number | undefined
  /** How long App Service's identity endpoint gets: 10 s. */
  endpointTimeoutMs?: number | undefined
  /** The clock, for tokens that say only `expires_in`. */
  now?: (() => number) | undefined
}

/** The instance metadata service's address on every Azure VM, scale set and AKS node. */
const imdsHost = 'http://169.254.169.254'

/**
 * Azure managed identity: an Entra token for `scope` from the identity endpoint of App Service,
 * Functions and Container Apps (`IDENTITY_ENDPOINT` with `IDENTITY_HEADER`, api-version
 * 2019-08-01), else from the instance metadata service (`Metadata: true`, api-version 2018-02-01;
 * `AZURE_POD_IDENTITY_AUTHORITY_HOST` moves it, as in Azure's SDKs). `AZURE_CLIENT_ID` picks a
 * user-assigned identity. The caller caches the token; a failure is an `Error` saying which
 * endpoint failed and how, never quoting a token.
 *
 * @see https://learn.microsoft.com/azure/app-service/overview-managed-identity#rest-endpoint-reference
 * @see https://learn.microsoft.com/entra/identity/managed-identities-azure-resources/how-to-use-vm-token
 */
export function azureManagedIdentity(
  options: AzureManagedIdentityOptions = {},
): (scope: string) => Promise<ExpiringCredential<string>> {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init))
  const now = options.now ?? Date.now
  return async (scope) => {
    const env = options.env ?? process.env
    const resource = scope.replace(/\/\.default$/, '')
    const clientId = env['AZURE_CLIENT_ID']
    const endpoint = env['IDENTITY_ENDPOINT']
    const header = env['IDENTITY_HEADER']
    if (endpoint !== undefined && endpoint !== '' && header !== undefined && header !== '') {
      const url = new URL(endpoint)
      url.searchParams.set('resource', resource)
      url.searchParams.set('api-version', '2019-08-01')
      if (clientId !== undefined && clientId !== '') url.searchParams.set('client_id', clientId)
      return ask(
        doFetch,
        url,
        { 'x-identity-header': header },
        options.endpointTimeoutMs ?? 10_000,
        'the identity endpoint (IDENTITY_ENDPOINT)',
        now,
      )
    }
    const host = (env['AZURE_POD_IDENTITY_AUTHORITY_HOST'] || imdsHost).replace(/\/+$/, '')
    const url = new URL(`${host}/metadata/identity/oauth2/token`)
    url.searchParams.set('api-version', '2018-02-01')
    url.searchParams.set('resource', resource)
    if (clientId !== undefined && clientId !== '') url.searchParams.set('client_id', clientId)
    return ask(
      doFetch,
      url,
      { metadata: 'true' },
      options.imdsTimeoutMs ?? 3_000,
      'the instance metadata service',
      now,
    )
  }
}

async function ask(
  doFetch: typeof fetch,
  url: URL,
  headers: Record<string, string>,
  timeoutMs: number,
  what: string,
  now: () => number,
): Promise<ExpiringCredential<string>> {
  let response: Response
  try {
    response = await doFetch(url, {
      headers: { ...headers, accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    })
  } catch (error) {
    const reason =
      error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : 'could not be reached'
    throw new Error(`managed identity: ${what} at ${url.origin} ${reason}`, { cause: error })
  }
  const { body, token } = await readTokenAnswer(response)
  if (token === undefined) {
    const error = typeof body['error'] === 'string' ? `: ${body['error']}` : ''
    throw new Error(`managed identity: ${what} answered HTTP ${response.status}${error}`)
  }
  return { value: token, expiresAt: expiryOf(body, now()) }
}
