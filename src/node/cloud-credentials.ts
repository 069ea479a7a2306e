import type { CloudCredentialChains } from '../upstream/credentials/cloud-credentials'
import {
  googleDefaultCredentials,
  readGoogleKeyFile,
  type GoogleDefaultCredentialsOptions,
} from './google/application-default'

/** Settings of Node's default credential chains (each defaults to the process's own). */
export type NodeCloudCredentialsOptions = {
  /** Google's Application Default Credentials: environment, home directory, fetch, clock. */
  google?: GoogleDefaultCredentialsOptions | undefined
}

/**
 * Node's default cloud credential chains, for the config's `cloudCredentials`: a cloud upstream
 * whose entry gives no credentials uses them (the CLI passes them). Google: Application Default
 * Credentials (`GOOGLE_APPLICATION_CREDENTIALS`, gcloud's file, the metadata server), and the
 * reading of a service-account key file an entry names by path.
 */
export function nodeCloudCredentials(
  options: NodeCloudCredentialsOptions = {},
): CloudCredentialChains {
  return {
    google: googleDefaultCredentials(options.google),
    googleKeyFile: readGoogleKeyFile,
  }
}
