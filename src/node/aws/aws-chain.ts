import { homedir } from 'node:os'
import type { AwsCredentials } from '../../upstream/credentials/cloud-credentials'
import type { ExpiringCredential } from '../../upstream/credentials/credential-cache'
import type { ChainOptions } from './chain-options'
import { containerCredentials, containerEndpoint } from './container-credentials'
import { imdsCredentials, imdsDisabled } from './imds-credentials'
import { profileCredentials, stsEndpoint } from './profile-credentials'
import { readProfiles } from './shared-files'
import { webIdentityCredentials } from './web-identity'

/** Options of `nodeAwsCredentials`: every input can be given (tests, an embedding application). */
export type NodeAwsCredentialsOptions = Partial<ChainOptions>

/**
 * AWS's standard credential chain on Node, in the order of AWS's SDKs: the `AWS_*` variables
 * (skipped when `AWS_PROFILE` names a profile), the shared files' profile (`AWS_PROFILE`, else
 * `default`), a web identity token (`AWS_WEB_IDENTITY_TOKEN_FILE` + `AWS_ROLE_ARN`), the
 * container's endpoint (ECS, EKS Pod Identity), EC2 instance metadata (IMDSv2, unless
 * `AWS_EC2_METADATA_DISABLED=true`). The first source that is configured answers; when it fails,
 * its error is the answer (a misconfigured source is not skipped silently). It does not cache:
 * the gateway asks it through the upstreams' shared credential cache.
 */
export function nodeAwsCredentials(
  options: NodeAwsCredentialsOptions = {},
): () => Promise<ExpiringCredential<AwsCredentials>> {
  return async () => {
    const chain: ChainOptions = { ...options, env: options.env ?? process.env }
    const env = chain.env
    if (!env.AWS_PROFILE && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
      const expiration = env.AWS_CREDENTIAL_EXPIRATION
        ? Date.parse(env.AWS_CREDENTIAL_EXPIRATION)
        : Number.NaN
      return {
        value: {
          accessKeyId: env.AWS_ACCESS_KEY_ID,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
          sessionToken: env.AWS_SESSION_TOKEN || undefined,
        },
        expiresAt: Number.isFinite(expiration) ? expiration : undefined,
      }
    }
    const profileName = env.AWS_PROFILE || 'default'
    const profiles = await readProfiles(chain, options.home ?? homedir())
    const fromProfile = await profileCredentials(profileName, profiles, chain)
    if (fromProfile !== undefined) return fromProfile
    if (env.AWS_PROFILE)
      throw new Error(`The AWS profile "${profileName}" is not in the shared files.`)
    if (env.AWS_WEB_IDENTITY_TOKEN_FILE && env.AWS_ROLE_ARN) {
      const region = env.AWS_REGION || env.AWS_DEFAULT_REGION
      return webIdentityCredentials(
        {
          tokenFile: env.AWS_WEB_IDENTITY_TOKEN_FILE,
          roleArn: env.AWS_ROLE_ARN,
          sessionName: env.AWS_ROLE_SESSION_NAME,
          endpoint: stsEndpoint(env, region),
        },
        chain,
      )
    }
    const container = containerEndpoint(env)
    if (container !== undefined) return containerCredentials(container, chain)
    if (imdsDisabled(env)) {
      throw new Error(
        'No AWS credentials: none in the AWS_* variables, the shared files, a web identity token or a container endpoint, and AWS_EC2_METADATA_DISABLED is set.',
      )
    }
    try {
      return await imdsCredentials(chain)
    } catch (error) {
      throw new Error(
        `No AWS credentials: none in the AWS_* variables, the shared files, a web identity token or a container endpoint, and the EC2 instance metadata failed: ${(error as Error).message}`,
      )
    }
  }
}
