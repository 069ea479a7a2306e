import {
  createCredentialCache,
  type CredentialCache,
  type ExpiringCredential,
} from '../credentials/credential-cache'
import type { CloudCredentialChains } from '../credentials/cloud-credentials'
import { cloudPlatformScope } from '../google/google-token'
import {
  credentialFileSecrets,
  credentialFileTokenSource,
  readGoogleCredentialFile,
} from '../google/service-account'
import { sharedCredentialCaches } from '../credentials/shared-credential-cache'
import { tokenSecrets } from '../credentials/token-secrets'
import { UpstreamEntryError } from '../entry-error'
import type { UpstreamKindContext } from '../kind'

/**
 * An entry's `credentials` callback, in code: an OAuth access token for Vertex AI, bare or with
 * its expiry (epoch ms). A bare token is kept until Vertex refuses it (401), then asked for again.
 */
export type GoogleTokenCallback = () =>
  string | ExpiringCredential<string> | Promise<string | ExpiringCredential<string>>

/** Where a Vertex entry's tokens come from. */
export type VertexCredentialSettings = {
  serviceAccount?: string | Record<string, unknown> | undefined
  credentials?: GoogleTokenCallback | undefined
}

/** A Vertex upstream's tokens, and the secrets to scrub from its errors. */
export type VertexCredentials = {
  readonly cache: CredentialCache<string>
  readonly secrets: () => readonly string[]
}

/**
 * One cache per credential, as every cloud's: the Vertex upstreams of one callback or one default
 * chain share one token and one fetch, whichever gateway of the process built them.
 */
const sharedCaches = sharedCredentialCaches<string>()
/**
 * Caches of key files, by the credential they hold (the account, its endpoint and key): a Gemini
 * and a Claude group on the same service account share one token.
 */
const fileCaches = new Map<string, CredentialCache<string>>()

/**
 * The credential of an entry, in order: its `credentials` callback; its `serviceAccount` (the key's
 * JSON, as an object or text, or a file path read through the runtime's `googleKeyFile`); else
 * the runtime's Application Default Credentials (`cloudCredentials.google`). A file that cannot
 * be read or is malformed, or no source at all, is an `UpstreamEntryError` naming the field.
 */
export function vertexCredentials(
  settings: VertexCredentialSettings,
  context: UpstreamKindContext,
): VertexCredentials {
  const now = context.now
  if (settings.credentials !== undefined) {
    const callback = settings.credentials
    const cache = sharedCaches(callback, () =>
      createCredentialCache(
        async () => {
          const got = await callback()
          return typeof got === 'string' ? { value: got } : got
        },
        { now },
      ),
    )
    return { cache, secrets: tokenSecrets(cache, []) }
  }
  if (settings.serviceAccount !== undefined) {
    const file = readGoogleCredentialFile(
      serviceAccountJson(settings.serviceAccount, context.cloudCredentials),
    )
    if (typeof file === 'string') {
      throw new UpstreamEntryError(`the service-account key ${file}`, 'serviceAccount')
    }
    const source = credentialFileTokenSource(file, {
      fetch: context.fetch ?? ((input, init) => fetch(input, init)),
      now,
      scopes: [cloudPlatformScope],
    })
    const identity = JSON.stringify(
      file.type === 'service_account'
        ? [file.key.clientEmail, file.key.tokenUri, file.key.privateKey]
        : [file.user.clientId, file.user.tokenUri, file.user.refreshToken],
    )
    let cache = fileCaches.get(identity)
    if (cache === undefined) {
      cache = createCredentialCache(source, { now })
      fileCaches.set(identity, cache)
    }
    return { cache, secrets: tokenSecrets(cache, credentialFileSecrets(file)) }
  }
  const chain = context.cloudCredentials?.google
  if (chain === undefined) {
    throw new UpstreamEntryError(
      'a Vertex upstream needs credentials: give "serviceAccount" (a key file or its JSON) or a "credentials" callback; Application Default Credentials are read on Node only (cloudCredentials: nodeCloudCredentials())',
      'serviceAccount',
    )
  }
  const cache = sharedCaches(chain, () =>
    createCredentialCache(() => chain([cloudPlatformScope]), { now }),
  )
  return { cache, secrets: tokenSecrets(cache, []) }
}

/** The key's JSON: the value itself, or the text of the file a path names. */
function serviceAccountJson(
  value: string | Record<string, unknown>,
  chains: CloudCredentialChains | undefined,
): unknown {
  if (typeof value !== 'string' || value.trimStart().startsWith('{')) return value
  const read = chains?.googleKeyFile
  if (read === undefined) {
    throw new UpstreamEntryError(
      `is a file path, and this runtime reads no files: give the key's JSON itself (on Node, pass cloudCredentials: nodeCloudCredentials())`,
      'serviceAccount',
    )
  }
  try {
    return read(value)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    throw new UpstreamEntryError(
      `the key file ${JSON.stringify(value)} cannot be read${typeof code === 'string' ? ` (${code})` : ''}`,
      'serviceAccount',
    )
  }
}
