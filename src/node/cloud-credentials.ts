import type { CloudCredentialChains } from '../upstream/credentials/cloud-credentials'
import { nodeAwsCredentials, type NodeAwsCredentialsOptions } from './aws/aws-chain'

/** Options of `nodeCloudCredentials`, per cloud. */
export type NodeCloudCredentialsOptions = {
  /** The AWS chain's inputs (environment, home folder, fetch), for tests and embedding. */
  aws?: NodeAwsCredentialsOptions | undefined
}

/**
 * The default credential chains of Node, for the config's `cloudCredentials`: an upstream whose
 * entry gives no credentials uses them. AWS: the environment, the shared files, web identity,
 * container and EC2 instance credentials (docs/cloud-credentials.md).
 *
 * @example
 * createGateway({ ...config, cloudCredentials: nodeCloudCredentials() })
 */
export function nodeCloudCredentials(
  options: NodeCloudCredentialsOptions = {},
): CloudCredentialChains {
  return {
    aws: nodeAwsCredentials(options.aws),
  }
}
