import type { CloudCredentialChains } from '../upstream/credentials/cloud-credentials'
import { nodeAwsCredentials, type NodeAwsCredentialsOptions } from './aws/aws-chain'
import { azureManagedIdentity, type AzureManagedIdentityOptions } from './azure/managed-identity'
import {
  googleDefaultCredentials,
  readGoogleKeyFile,
  type GoogleDefaultCredentialsOptions,
} from './google/application-default'

/** Options of `nodeCloudCredentials`, per cloud (each defaults to the process's own). */
export type NodeCloudCredentialsOptions = {
  /** The AWS chain's inputs (environment, home folder, fetch), for tests and embedding. */
  aws?: NodeAwsCredentialsOptions | undefined
  /** Google's Application Default Credentials: environment, home directory, fetch, clock. */
  google?: GoogleDefaultCredentialsOptions | undefined
  /** Azure managed identity's inputs (environment, fetch), for tests and embedding. */
  azure?: AzureManagedIdentityOptions | undefined
}

/**
 * The default credential chains of Node, for the config's `cloudCredentials`: an upstream whose
 * entry gives no credentials uses them (the CLI passes them). Each chain reads the environment
 * when it is first asked, not now. AWS: the environment, the shared files, web identity, container
 * and EC2 instance credentials. Google: Application Default Credentials
 * (`GOOGLE_APPLICATION_CREDENTIALS`, gcloud's file, the metadata server), and the reading of a
 * service-account key file an entry names by path. Azure: managed identity
 * (docs/cloud-credentials.md).
 *
 * @example
 * createGateway({ ...config, cloudCredentials: nodeCloudCredentials() })
 */
export function nodeCloudCredentials(
  options: NodeCloudCredentialsOptions = {},
): CloudCredentialChains {
  return {
    aws: nodeAwsCredentials(options.aws),
    google: googleDefaultCredentials(options.google),
    googleKeyFile: readGoogleKeyFile,
    azure: azureManagedIdentity(options.azure),
  }
}
