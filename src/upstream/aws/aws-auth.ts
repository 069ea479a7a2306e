import { GatewayError } from '../../errors'
import type { AwsCredentials } from '../credentials/cloud-credentials'
import type { CredentialCache } from '../credentials/credential-cache'
import type { UpstreamKindContext } from '../kind'
import type { CredentialRenewal, PreparedRequest, SignHook } from '../prepared-request'
import { awsCredentialProblems, AwsCredentialsConfigError } from './aws-credential-problems'
import {
  callbackCache,
  chainCache,
  roleCache,
  staticCredentials,
  type AwsCredentialCallback,
} from './aws-credential-sources'
import { SigningKeys, signRequest } from './sigv4'

/** The credential fields of an AWS upstream's config entry (Bedrock's). */
export type AwsAuthSettings = {
  /** The region requests are signed for (and STS is reached in). */
  readonly region: string
  readonly accessKeyId?: string | undefined
  readonly secretAccessKey?: string | undefined
  readonly sessionToken?: string | undefined
  /** A Bedrock API key: sent as `authorization: Bearer …`, never with a SigV4 signature. */
  readonly apiKey?: string | undefined
  /** A role to assume through STS with the credentials the entry or the chain gives. */
  readonly roleArn?: string | undefined
  /** A callback in code that fetches credentials (refreshed before `expiration`). */
  readonly credentials?: AwsCredentialCallback | undefined
}

/** How a kind signs with AWS credentials: its `sign` hook, its live secrets and its renewal. */
export type AwsAuth = {
  /** Signs each prepared request (SigV4, or the API key's bearer header). */
  readonly sign: SignHook
  /** The secrets in use now (secret key, session token, API key), for the scrubber. */
  readonly secrets: () => readonly string[]
  /** Renews a credential AWS refused as expired; absent for long-lived keys and API keys. */
  readonly renewal?: CredentialRenewal | undefined
}

/** Options of `createAwsAuth` besides the entry and the context. */
export type AwsAuthOptions = {
  /** The signing name of the service: `bedrock` (Bedrock Runtime's, not `bedrock-runtime`). */
  readonly service?: string | undefined
}

/**
 * What AWS answers when a session's token has expired: `ExpiredTokenException` (403, "The
 * security token included in the request is expired") from the service front ends, STS's
 * `ExpiredToken`, and "Request has expired" / "Signature expired" are not included: those are
 * clock skew, which new credentials do not cure.
 */
const expiredToken = /ExpiredToken|security token included in the request is expired/i

/** Whether a 401 or 403 body says the session credentials expired. */
export function isExpiredTokenAnswer(status: number, body: string): boolean {
  return (status === 403 || status === 401 || status === 400) && expiredToken.test(body)
}

/**
 * The signing of an AWS upstream from its entry's credentials, in this order: a Bedrock `apiKey`
 * (bearer); `accessKeyId` + `secretAccessKey` (+ `sessionToken`); the `credentials` callback;
 * else the runtime's chain (`context.cloudCredentials.aws`, `nodeCloudCredentials()` on Node).
 * With `roleArn`, those credentials assume the role through STS and the role's are used. Every
 * short-lived credential is kept in one `createCredentialCache` shared by the upstreams that name
 * the same source, refreshed 5 minutes before it expires, single-flight.
 *
 * @throws AwsCredentialsConfigError when the entry's credentials conflict or none can be had.
 */
export function createAwsAuth(
  settings: AwsAuthSettings,
  context: Pick<UpstreamKindContext, 'now' | 'fetch' | 'env' | 'cloudCredentials'>,
  options: AwsAuthOptions = {},
): AwsAuth {
  const problems = awsCredentialProblems(settings, context)
  if (problems.length > 0) throw new AwsCredentialsConfigError(problems)
  const apiKey = settings.apiKey
  if (apiKey !== undefined) {
    const secrets = [apiKey]
    return {
      sign(request) {
        for (const name of Object.keys(request.headers)) {
          if (/^(authorization|x-amz-date|x-amz-security-token)$/i.test(name)) {
            delete request.headers[name] // lookup-safe: an own key
          }
        }
        request.headers.authorization = `Bearer ${apiKey}`
        return request
      },
      secrets: () => secrets,
    }
  }
  const service = options.service ?? 'bedrock'
  const { cache, expires, sources } = credentialCacheOf(settings, context)
  const keys = new SigningKeys()
  /** The credentials each request was signed with, for `renewal.renew`. */
  const signedWith = new WeakMap<PreparedRequest, AwsCredentials>()
  const sign: SignHook = async (request) => {
    const credentials = await cache.get().catch((error: unknown) => {
      // The detail (a file, STS's answer naming the account and role) stays in the cause, for
      // the logs; a client is told only that this upstream's credentials failed (502, so the
      // call fails over).
      throw new GatewayError(
        'upstream_error',
        'The AWS credentials of this upstream could not be obtained.',
        {
          status: 502,
          cause: error,
        },
      )
    })
    signedWith.set(request, credentials)
    return signRequest(request, {
      credentials,
      region: settings.region,
      service,
      now: context.now(),
      keys,
    })
  }
  return {
    sign,
    secrets: liveSecrets(sources, staticSecrets(settings)),
    renewal: !expires
      ? undefined
      : {
          refused: isExpiredTokenAnswer,
          renew(sent) {
            const stale = signedWith.get(sent)
            if (stale !== undefined) cache.invalidate(stale)
          },
        },
  }
}

/** Where an entry's credentials come from (see `createAwsAuth`). */
type CredentialPlan = {
  /** The cache the signer asks. */
  cache: CredentialCache<AwsCredentials>
  /** Whether its credentials can expire (and so be renewed when refused). */
  expires: boolean
  /** Every cache whose credentials are live secrets: the role's and the ones that assume it. */
  sources: CredentialCache<AwsCredentials>[]
}

function credentialCacheOf(
  settings: AwsAuthSettings,
  context: Pick<UpstreamKindContext, 'now' | 'fetch' | 'env' | 'cloudCredentials'>,
): CredentialPlan {
  const keys =
    settings.accessKeyId !== undefined && settings.secretAccessKey !== undefined
      ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
      : undefined
  const source =
    keys !== undefined
      ? staticCredentials({ ...keys, sessionToken: settings.sessionToken })
      : settings.credentials !== undefined
        ? callbackCache(settings.credentials, context.now)
        : // awsCredentialProblems refused an entry without credentials when there is no chain.
          chainCache(context.cloudCredentials!.aws!, context.now)
  if (settings.roleArn === undefined) {
    return { cache: source, expires: keys === undefined, sources: [source] }
  }
  const role = roleCache(source, {
    roleArn: settings.roleArn,
    region: settings.region,
    env: context.env,
    fetch: context.fetch,
    now: context.now,
  })
  return { cache: role, expires: true, sources: [role, source] }
}

/** The entry's own secret key and session token, secrets before any call is signed. */
function staticSecrets(settings: AwsAuthSettings): string[] {
  return [settings.secretAccessKey, settings.sessionToken].filter(
    (value): value is string => value !== undefined && value !== '',
  )
}

/**
 * The secrets of the credentials held now and of the ones held before them (a call signed with
 * those may still fail after a refresh); the same array while they are the same.
 */
function liveSecrets(
  caches: CredentialCache<AwsCredentials>[],
  fixed: readonly string[],
): () => readonly string[] {
  const seen: (AwsCredentials | undefined)[] = []
  const previous: (AwsCredentials | undefined)[] = []
  let secrets: readonly string[] = fixed
  return () => {
    let changed = false
    caches.forEach((cache, index) => {
      const held = cache.peek()
      if (held === seen[index]) return
      previous[index] = seen[index]
      seen[index] = held
      changed = true
    })
    if (changed) {
      const values = new Set<string>(fixed)
      for (const credentials of [...seen, ...previous]) {
        if (credentials === undefined) continue
        values.add(credentials.secretAccessKey)
        if (credentials.sessionToken) values.add(credentials.sessionToken)
      }
      secrets = [...values]
    }
    return secrets
  }
}
