import type { AwsCredentials } from '../../upstream/credentials/cloud-credentials'
import type { ExpiringCredential } from '../../upstream/credentials/credential-cache'
import { awsEndpoint } from '../../upstream/aws/aws-endpoints'
import { assumeRole } from '../../upstream/aws/sts'
import type { ChainOptions } from './chain-options'
import type { Profile } from './shared-files'
import { webIdentityCredentials } from './web-identity'

/** The STS endpoint of a region, honouring `AWS_ENDPOINT_URL_STS`. */
export function stsEndpoint(env: ChainOptions['env'], region: string | undefined): string {
  return (
    awsEndpoint(env, 'STS') ??
    (region ? `https://sts.${region}.amazonaws.com` : 'https://sts.amazonaws.com')
  )
}

/** A profile's long-lived keys (and session token), or `undefined` when it has none. */
function profileKeys(profile: Profile): AwsCredentials | undefined {
  const accessKeyId = profile.get('aws_access_key_id')
  const secretAccessKey = profile.get('aws_secret_access_key')
  if (!accessKeyId || !secretAccessKey) return undefined
  const sessionToken = profile.get('aws_session_token')
  return { accessKeyId, secretAccessKey, sessionToken: sessionToken || undefined }
}

/**
 * The credentials a profile gives: its keys; a role (`role_arn`) assumed with its
 * `source_profile`'s keys or its `web_identity_token_file`. What the gateway does not implement
 * (SSO, `credential_process`, `credential_source`, a source profile that itself assumes a role)
 * is an error that says so, rather than a silent fall-through to another source.
 */
export async function profileCredentials(
  name: string,
  profiles: ReadonlyMap<string, Profile>,
  options: ChainOptions,
): Promise<ExpiringCredential<AwsCredentials> | undefined> {
  const profile = profiles.get(name)
  if (profile === undefined) return undefined
  const region = profile.get('region') || options.env.AWS_REGION || options.env.AWS_DEFAULT_REGION
  const roleArn = profile.get('role_arn')
  if (roleArn) {
    const sessionName = profile.get('role_session_name') || undefined
    const tokenFile = profile.get('web_identity_token_file')
    if (tokenFile) {
      return webIdentityCredentials(
        { tokenFile, roleArn, sessionName, endpoint: stsEndpoint(options.env, region) },
        options,
      )
    }
    const sourceName = profile.get('source_profile')
    if (!sourceName) {
      throw new Error(
        `AWS profile "${name}": role_arn needs source_profile or web_identity_token_file here (credential_source is not supported).`,
      )
    }
    const source = profiles.get(sourceName)
    const keys = source === undefined ? undefined : profileKeys(source)
    if (keys === undefined) {
      throw new Error(
        `AWS profile "${name}": its source_profile "${sourceName}" has no aws_access_key_id/aws_secret_access_key (chained roles are not supported).`,
      )
    }
    return assumeRole({
      credentials: keys,
      roleArn,
      roleSessionName: sessionName,
      region: region || 'us-east-1',
      endpoint: stsEndpoint(options.env, region || 'us-east-1'),
      fetch: options.fetch,
      now: options.now ?? Date.now,
    })
  }
  const keys = profileKeys(profile)
  if (keys !== undefined) return { value: keys }
  for (const unsupported of ['sso_session', 'sso_start_url', 'credential_process']) {
    if (profile.has(unsupported)) {
      throw new Error(
        `AWS profile "${name}" uses ${unsupported}, which the gateway does not support: give keys, a role, or pass a credentials callback.`,
      )
    }
  }
  return undefined
}
