import type { CloudCredentialChains } from '../upstream/credentials/cloud-credentials'
import { nodeAwsCredentials, type NodeAwsCredentialsOptions } from './aws/aws-chain'
import { azureManagedIdentity, type AzureManagedIdentityOptions } from './azure/managed-identity'

/** Options of `nodeCloudCredentials`, per cloud. */
export type NodeCloudCredentialsOptions = {
  /** The AWS chain's inputs (environment, home folder, fetch), for tests and embedding. */
  aws?: NodeAwsCredentialsOptions | undefined
  /** Azure managed identity's inputs (environment, fetch), for tests and embedding. */
  azure?: AzureManagedIdentityOptions | undefined
}

/**
 * The default credential chains of Node, for the config's `cloudCredentials`: an upstream whose
 * entry gives no credentials uses them. Each chain reads the environment when it is first asked,
 * not now. AWS: the environment, the shared files, web identity, container and EC2 instance
 * credentials; Azure: managed identity (docs/cloud-credentials.md).
 *
 * @example
 * createGateway({ ...config, cloudCredentials: nodeCloudCredentials() })
 */
export function nodeCloudCredentials(
  options: NodeCloudCredentialsOptions = {},
): CloudCredentialChains {
  return {
    aws: nodeAwsCredentials(options.aws),
    azure: azureManagedIdentity(options.azure),
  }
}
