import type { AwsCredentials } from '../credentials/cloud-credentials'
import {
  createCredentialCache,
  type CredentialCache,
  type ExpiringCredential,
} from '../credentials/credential-cache'
import { sharedCredentialCaches } from '../credentials/shared-credential-cache'
import { awsEndpoint } from './aws-endpoints'
import { assumeRole } from './sts'

/** What a `credentials` callback in code returns: keys, a session token, when they expire. */
export type AwsCallbackCredentials = {
  readonly accessKeyId: string
  readonly secretAccessKey: string
  readonly sessionToken?: string | undefined
  /** When they stop working: a `Date` or epoch milliseconds; none for long-lived keys. */
  readonly expiration?: Date | number | undefined
}

/** A callback in code that fetches AWS credentials (an application's own vault, SSO, …). */
export type AwsCredentialCallback = () => Promise<AwsCallbackCredentials>

/**
 * The caches of the sources upstreams share, owned by the source itself (the chain's or the
 * callback's function), so a burst of calls across upstreams that name one source fetches once.
 */
const sourceCaches = sharedCredentialCaches<AwsCredentials>()
/** The caches of assumed roles, owned by the cache of the credentials that assume them. */
const roleCaches = sharedCredentialCaches<AwsCredentials>()

/** Long-lived keys from the entry: a cache that never fetches again. */
export function staticCredentials(credentials: AwsCredentials): CredentialCache<AwsCredentials> {
  const value: AwsCredentials = { ...credentials }
  return createCredentialCache(async () => ({ value }))
}

/** The cache of a `credentials` callback, shared by every upstream that passes the same one. */
export function callbackCache(
  callback: AwsCredentialCallback,
  now: () => number,
): CredentialCache<AwsCredentials> {
  return sourceCaches(callback, () =>
    createCredentialCache(async () => fromCallback(await callback()), { now }),
  )
}

/** The cache of the runtime's AWS chain, shared by every upstream that uses it. */
export function chainCache(
  chain: () => Promise<ExpiringCredential<AwsCredentials>>,
  now: () => number,
): CredentialCache<AwsCredentials> {
  return sourceCaches(chain, () => createCredentialCache(chain, { now }))
}

/** Checks what a callback returned; the message never repeats a value. */
function fromCallback(given: AwsCallbackCredentials): ExpiringCredential<AwsCredentials> {
  if (
    typeof given !== 'object' ||
    given === null ||
    typeof given.accessKeyId !== 'string' ||
    given.accessKeyId === '' ||
    typeof given.secretAccessKey !== 'string' ||
    given.secretAccessKey === ''
  ) {
    throw new Error('The AWS credentials callback returned no accessKeyId and secretAccessKey.')
  }
  const expiration = given.expiration
  const expiresAt = expiration instanceof Date ? expiration.getTime() : expiration
  if (expiresAt !== undefined && !Number.isFinite(expiresAt)) {
    throw new Error('The AWS credentials callback returned an expiration that is not a date.')
  }
  return {
    value: {
      accessKeyId: given.accessKeyId,
      secretAccessKey: given.secretAccessKey,
      sessionToken: given.sessionToken === '' ? undefined : given.sessionToken,
    },
    expiresAt,
  }
}

/** Where a role is assumed. */
export type RoleSettings = {
  readonly roleArn: string
  readonly region: string
  readonly env?: Readonly<Record<string, unknown>> | undefined
  readonly fetch?: typeof fetch | undefined
  readonly now: () => number
}

/**
 * The cache of a role assumed with `source`'s credentials through STS AssumeRole, shared by the
 * upstreams that assume the same role in the same region with the same source.
 */
export function roleCache(
  source: CredentialCache<AwsCredentials>,
  settings: RoleSettings,
): CredentialCache<AwsCredentials> {
  const endpoint =
    awsEndpoint(settings.env, 'STS') ?? `https://sts.${settings.region}.amazonaws.com`
  const key = `${settings.roleArn}\n${settings.region}\n${endpoint}`
  return roleCaches(
    source,
    () =>
      createCredentialCache(
        async () =>
          assumeRole({
            credentials: await source.get(),
            roleArn: settings.roleArn,
            region: settings.region,
            endpoint,
            fetch: settings.fetch,
            now: settings.now,
          }),
        { now: settings.now },
      ),
    key,
  )
}
