import type { ExpiringCredential } from '../../upstream/credentials/credential-cache'
import { GatewayError } from '../../errors'
import { readGoogleToken } from '../../upstream/google/google-token'

/** How long the metadata server may take: it is local, so a slow one is an absent one. */
export const metadataTimeoutMs = 3_000

/** Settings of the metadata server's token source. */
export type MetadataServerOptions = {
  fetch: typeof fetch
  now: () => number
  /** `GCE_METADATA_HOST` (`host[:port]`), else `GCE_METADATA_IP`, else `169.254.169.254`. */
  host: string
}

/**
 * The access token of the instance's default service account, from the metadata server of
 * Compute Engine, GKE, Cloud Run and Cloud Functions: `GET
 * /computeMetadata/v1/instance/service-accounts/default/token` with `Metadata-Flavor: Google`.
 * An answer without that header back is not the metadata server's and is refused.
 *
 * @see https://cloud.google.com/compute/docs/access/authenticate-workloads#applications
 */
export async function metadataServerToken(
  options: MetadataServerOptions,
  scopes: readonly string[],
): Promise<ExpiringCredential<string>> {
  const query = scopes.length === 0 ? '' : `?scopes=${encodeURIComponent(scopes.join(','))}`
  const url = `http://${options.host}/computeMetadata/v1/instance/service-accounts/default/token${query}`
  let response: Response
  try {
    response = await options.fetch(url, {
      headers: { 'metadata-flavor': 'Google' },
      redirect: 'manual',
      signal: AbortSignal.timeout(metadataTimeoutMs),
    })
  } catch (error) {
    throw new GatewayError(
      'upstream_error',
      `No Google credentials: GOOGLE_APPLICATION_CREDENTIALS is unset, gcloud's application_default_credentials.json is absent, and the metadata server at ${options.host} did not answer (${error instanceof Error ? error.name : 'error'}).`,
    )
  }
  if (response.headers.get('metadata-flavor') !== 'Google') {
    await response.body?.cancel()
    throw new GatewayError(
      'upstream_error',
      `The metadata server at ${options.host} answered without "Metadata-Flavor: Google": not Google's metadata server.`,
    )
  }
  return readGoogleToken(response, `The metadata server at ${options.host}`, options.now)
}
