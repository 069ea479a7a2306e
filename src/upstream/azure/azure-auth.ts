import { GatewayError } from '../../errors'
import { credentialFor } from '../credentials/credential-failure'
import {
  createCredentialCache,
  type CredentialCache,
  type ExpiringCredential,
} from '../credentials/credential-cache'
import { sharedCredentialCaches } from '../credentials/shared-credential-cache'
import { tokenSecrets } from '../credentials/token-secrets'
import { UpstreamEntryError } from '../entry-error'
import type { UpstreamKindContext } from '../kind'
import type { CredentialRenewal, SignHook } from '../prepared-request'
import {
  cognitiveServicesScope,
  entraClientCredentialsSource,
  type EntraClientCredentials,
} from './entra-token'

/**
 * An entry's `credentials` callback, in code: an Entra access token for `scope`. A plain string is
 * used for the one call it was asked for (the callback caches, as `getBearerTokenProvider` of
 * `@azure/identity` does); `{ value, expiresAt }` is cached by the gateway until 5 minutes before
 * `expiresAt`.
 */
export type AzureTokenProvider = (
  scope: string,
) => Promise<string | ExpiringCredential<string>> | string | ExpiringCredential<string>

/** The credential fields of an Azure entry. */
export type AzureAuthSettings = {
  apiKey?: string | undefined
  apiKeys?: readonly string[] | undefined
  entra?: EntraClientCredentials | undefined
  credentials?: AzureTokenProvider | undefined
}

/** How an Azure upstream authenticates: a key (sent by the wire) or a bearer token it signs with. */
export type AzureAuth =
  | { kind: 'key' }
  | {
      kind: 'token'
      sign: SignHook
      renewal: CredentialRenewal
      secrets: () => readonly string[]
      cache: CredentialCache<string>
    }

/**
 * The auth of an entry: its key, else its `entra` client credentials, else its `credentials`,
 * else the runtime's Azure chain (managed identity on Node). Tokens go through one
 * `createCredentialCache` (managed identity's and a service principal's shared by every entry
 * that uses the same), are sent as `authorization: Bearer`, and a 401 renews the token once.
 * A token that cannot be had fails the call as a refused credential: no request goes out with an
 * empty bearer.
 *
 * @throws UpstreamEntryError when the entry gives no credential and the runtime has no chain
 */
export function azureAuth(settings: AzureAuthSettings, context: UpstreamKindContext): AzureAuth {
  if (settings.apiKey === '')
    throw new UpstreamEntryError('the Azure key is empty (an unset variable?)', 'apiKey')
  if (settings.apiKey !== undefined || settings.apiKeys !== undefined) return { kind: 'key' }
  const cache = tokenCache(settings, context)
  const clientSecret = settings.entra?.clientSecret
  const secrets = tokenSecrets(cache, clientSecret ? [clientSecret] : [])
  return {
    kind: 'token',
    cache,
    secrets,
    async sign(request) {
      const token = await credentialFor(cache, 'Azure', context.id)
      if (token === '') throw missingToken(context.id)
      request.headers['authorization'] = `Bearer ${token}` // lookup-safe: a prototype-less record
      return request
    },
    renewal: {
      // Azure answers 401 for an expired, revoked or wrong-audience token; a 403 is a missing role
      // assignment, which a new token does not cure.
      refused: (status) => status === 401,
      renew(sent) {
        const value = sent.headers['authorization'] ?? ''
        if (value.startsWith('Bearer ')) cache.invalidate(value.slice('Bearer '.length))
      },
    },
  }
}

/**
 * Service principals' and managed identity's caches, shared by the entries that name the same:
 * owned by the fetch (or clock) a principal's token is asked with, keyed by the principal; owned
 * by the chain, keyed by the scope.
 */
const sharedCaches = sharedCredentialCaches<string>()

function tokenCache(
  settings: AzureAuthSettings,
  context: UpstreamKindContext,
): CredentialCache<string> {
  const now = context.now
  const { entra, credentials } = settings
  if (entra !== undefined) {
    const key = JSON.stringify([
      entra.authorityHost,
      entra.tenantId,
      entra.clientId,
      entra.clientSecret,
    ])
    return sharedCaches(
      context.fetch ?? now,
      () =>
        createCredentialCache(entraClientCredentialsSource(entra, { fetch: context.fetch, now }), {
          now,
        }),
      key,
    )
  }
  if (credentials !== undefined) {
    return createCredentialCache(
      async () => {
        const token = await authFailure(context.id, 'its credentials callback', () =>
          credentials(cognitiveServicesScope),
        )
        // A bare string is good for this call only: the callback keeps its own cache.
        return typeof token === 'string' ? { value: token, expiresAt: now() } : token
      },
      { now },
    )
  }
  const chain = context.cloudCredentials?.azure
  if (chain === undefined) {
    throw new UpstreamEntryError(
      'an Azure upstream needs "apiKey", "apiKeys", "entra" or "credentials", or a managed identity (the config\'s "cloudCredentials.azure", which nodeCloudCredentials() from model-gateway/node gives and the CLI passes)',
      'apiKey',
    )
  }
  return sharedCaches(
    chain,
    () =>
      createCredentialCache(
        () => authFailure(context.id, 'the managed identity', () => chain(cognitiveServicesScope)),
        { now },
      ),
    cognitiveServicesScope,
  )
}

function missingToken(id: string): GatewayError {
  return new GatewayError(
    'upstream_error',
    `The Azure upstream ${id} got an empty Entra token; the call was not sent.`,
    { status: 502, upstream: { status: 401 } },
  )
}

/**
 * Runs a token source; a failure that is not already a `GatewayError` becomes the upstream's
 * refusal of the gateway's credentials (a 502 that failover treats as a refused key), never a call
 * sent without a token.
 */
async function authFailure<T>(id: string, source: string, fetch: () => T | Promise<T>): Promise<T> {
  try {
    return await fetch()
  } catch (error) {
    if (GatewayError.isInstance(error)) throw error
    // What went wrong (a tenant, a host, a callback's message) stays in `cause`, for the operator.
    throw new GatewayError(
      'upstream_error',
      `The Azure upstream ${id} got no Entra token from ${source}.`,
      { status: 502, upstream: { status: 401 }, cause: error },
    )
  }
}
