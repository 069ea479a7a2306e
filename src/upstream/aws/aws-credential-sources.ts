import type { AwsCredentials } from '../credentials/cloud-credentials'
import {
  createCredentialCache,
  type CredentialCache,
  type ExpiringCredential,
} from '../credentials/credential-cache'
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
 * The caches of the sources upstreams share, keyed by the source itself (the chain's or the
 * callback's function), so a burst of calls across upstreams that name one source fetches once.
 * Weak: a source no config holds any more takes its cache with it.
 */
const shared = new WeakMap<object, CredentialCache<AwsCredentials>>()
const roles = new WeakMap<object, Map<string, CredentialCache<AwsCredentials>>>()

function sharedCache(
  key: object,
  source: () => Promise<ExpiringCredential<AwsCredentials>>,
  now: () => number,
): CredentialCache<AwsCredentials> {
  let cache = shared.get(key)
  if (cache === undefined) {
    cache = createCredentialCache(source, { now })
    shared.set(key, cache)
  }
  return cache
}

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
  return sharedCache(callback, async () => fromCallback(await callback()), now)
}

/** The cache of the runtime's AWS chain, shared by every upstream that uses it. */
export function chainCache(
  chain: () => Promise<ExpiringCredential<AwsCredentials>>,
  now: () => number,
): CredentialCache<AwsCredentials> {
  return sharedCache(chain, chain, now)
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
  let byRole = roles.get(source)
  if (byRole === undefined) {
    byRole = new Map()
    roles.set(source, byRole)
  }
  let cache = byRole.get(key)
  if (cache === undefined) {
    cache = createCredentialCache(
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
    )
    byRole.set(key, cache)
  }
  return cache
}
