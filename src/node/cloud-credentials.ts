import type { CloudCredentialChains } from '../upstream/credentials/cloud-credentials'
import { azureManagedIdentity } from './azure/managed-identity'

/**
 * Node's default cloud credential chains, for cloud upstreams whose entry gives no credentials:
 * pass it as the config's `cloudCredentials` (the CLI does). Each chain reads the environment
 * when it is first asked, not now.
 *
 * @example
 * createGateway({ ...config, cloudCredentials: nodeCloudCredentials() })
 */
export function nodeCloudCredentials(): CloudCredentialChains {
  return {
    azure: azureManagedIdentity(),
  }
}
