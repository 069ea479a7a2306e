import type { ExpiringCredential } from './credential-cache'

/** A set of AWS credentials: long-lived keys, or a session's, with its token. */
export type AwsCredentials = {
  readonly accessKeyId: string
  readonly secretAccessKey: string
  readonly sessionToken?: string | undefined
}

/**
 * The default credential chains of the runtime the gateway runs on, used by a cloud upstream whose
 * config entry gives no credentials of its own. The gateway's core has none (a Worker has no
 * files, environment or metadata server); `nodeCloudCredentials()` from `model-gateway/node` gives
 * Node's (the AWS chain, Application Default Credentials, Azure managed identity), and the CLI
 * passes it. Each chain is asked through the upstream's own credential cache, so a chain need not
 * cache.
 */
export type CloudCredentialChains = {
  /** AWS: the environment, shared files, web identity, container and instance credentials. */
  readonly aws?: (() => Promise<ExpiringCredential<AwsCredentials>>) | undefined
  /** Google: an OAuth access token for `scopes` (Application Default Credentials). */
  readonly google?: ((scopes: readonly string[]) => Promise<ExpiringCredential<string>>) | undefined
  /**
   * Google: reads a service-account key file an entry names by path (`serviceAccount`), when the
   * upstream is built, so that a missing or malformed file is a config error. Only where the
   * runtime has files (Node).
   */
  readonly googleKeyFile?: ((path: string) => string) | undefined
  /** Azure: an Entra access token for `scope` (managed identity). */
  readonly azure?: ((scope: string) => Promise<ExpiringCredential<string>>) | undefined
}
