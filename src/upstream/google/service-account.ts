import type { CredentialSource } from '../credentials/credential-cache'
import { base64UrlOfBytes, base64UrlOfJson, pemBytes } from './base64url'
import { cloudPlatformScope, googleTokenUrl, postTokenForm, readGoogleToken } from './google-token'

/** The parts of a service-account key file the token exchange uses. */
export type ServiceAccountKey = {
  readonly clientEmail: string
  /** The PKCS#8 private key, PEM. */
  readonly privateKey: string
  readonly privateKeyId?: string | undefined
  /** Where the signed assertion is exchanged (the file's `token_uri`). */
  readonly tokenUri: string
}

/** An `authorized_user` file's refresh grant (`gcloud auth application-default login`). */
export type AuthorizedUser = {
  readonly clientId: string
  readonly clientSecret: string
  readonly refreshToken: string
  /** Where the refresh token is exchanged: the file's `token_uri`, else Google's endpoint. */
  readonly tokenUri: string
}

/** A Google credential file, read: a service-account key or a user's refresh grant. */
export type GoogleCredentialFile =
  | { readonly type: 'service_account'; readonly key: ServiceAccountKey }
  | { readonly type: 'authorized_user'; readonly user: AuthorizedUser }

/**
 * Reads a Google credential file's JSON (the text or the parsed object): `service_account`
 * (`client_email`, a PEM `private_key`, `token_uri`) or `authorized_user` (`client_id`,
 * `client_secret`, `refresh_token`). Anything else is a problem, returned as a sentence that names
 * the missing or wrong field and never quotes a value (the file holds a private key).
 */
export function readGoogleCredentialFile(json: unknown): GoogleCredentialFile | string {
  let value = json
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value)
    } catch {
      return 'is not valid JSON'
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'is not a JSON object'
  }
  const file = value as Record<string, unknown>
  const text = (name: string): string | undefined => {
    const field = Object.hasOwn(file, name) ? file[name] : undefined // lookup-safe: own fields only
    return typeof field === 'string' && field !== '' ? field : undefined
  }
  const tokenUri = text('token_uri') ?? googleTokenUrl
  if (!secureTokenUri(tokenUri)) {
    return 'has a `token_uri` that is not an https URL (plain http only to a loopback host)'
  }
  const type = text('type') ?? 'service_account'
  if (type === 'authorized_user') {
    const missing = ['client_id', 'client_secret', 'refresh_token'].filter((name) => !text(name))
    if (missing.length > 0) return `is an authorized_user file without \`${missing.join('`, `')}\``
    return {
      type,
      user: {
        clientId: text('client_id')!,
        clientSecret: text('client_secret')!,
        refreshToken: text('refresh_token')!,
        tokenUri,
      },
    }
  }
  if (type !== 'service_account') {
    return `has type "${type.slice(0, 40)}": only service_account and authorized_user credentials are read (external_account: use a token callback)`
  }
  const clientEmail = text('client_email')
  if (clientEmail === undefined) return 'is a service-account key without `client_email`'
  const privateKey = text('private_key')
  if (privateKey === undefined || !privateKey.includes('-----BEGIN PRIVATE KEY-----')) {
    return 'is a service-account key without a PKCS#8 PEM `private_key` (-----BEGIN PRIVATE KEY-----)'
  }
  return {
    type,
    key: { clientEmail, privateKey, privateKeyId: text('private_key_id'), tokenUri },
  }
}

/** Settings of a token source. */
export type GoogleTokenSourceOptions = {
  fetch: typeof fetch
  now: () => number
  scopes?: readonly string[] | undefined
}

/** The lifetime asked of an assertion: Google refuses one over an hour ("short-lived token"). */
const assertionLifetimeSeconds = 3600

/**
 * Exchanges a service-account key for access tokens: an RS256 JWT (`iss` the account, `aud` its
 * `token_uri`, the scopes, one hour) signed with Web Crypto, posted as a `jwt-bearer` grant. The
 * key is imported once. Runs on every runtime with Web Crypto and `fetch`.
 *
 * @see https://developers.google.com/identity/protocols/oauth2/service-account#httprest
 */
export function serviceAccountTokenSource(
  key: ServiceAccountKey,
  options: GoogleTokenSourceOptions,
): CredentialSource<string> {
  let signingKey: Promise<CryptoKey> | undefined
  const scope = (options.scopes ?? [cloudPlatformScope]).join(' ')
  return async () => {
    signingKey ??= crypto.subtle
      .importKey(
        'pkcs8',
        pemBytes(key.privateKey),
        { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
        false,
        ['sign'],
      )
      .catch((error: unknown) => {
        signingKey = undefined
        throw new Error(`The service-account key of ${key.clientEmail} is not a usable RSA key.`, {
          cause: error instanceof Error ? error.name : undefined,
        })
      })
    const iat = Math.floor(options.now() / 1000)
    const header = {
      alg: 'RS256',
      typ: 'JWT',
      ...(key.privateKeyId ? { kid: key.privateKeyId } : {}),
    }
    const claims = {
      iss: key.clientEmail,
      scope,
      aud: key.tokenUri,
      iat,
      exp: iat + assertionLifetimeSeconds,
    }
    const input = `${base64UrlOfJson(header)}.${base64UrlOfJson(claims)}`
    const signature = await crypto.subtle.sign(
      'RSASSA-PKCS1-v1_5',
      await signingKey,
      new TextEncoder().encode(input),
    )
    const response = await postTokenForm(options.fetch, key.tokenUri, {
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: `${input}.${base64UrlOfBytes(new Uint8Array(signature))}`,
    })
    return readGoogleToken(response, `The token endpoint of ${key.clientEmail}`, options.now)
  }
}

/**
 * Exchanges an `authorized_user` refresh token for access tokens (the OAuth refresh grant), as
 * gcloud's Application Default Credentials do. Scopes are the ones the user granted.
 */
export function authorizedUserTokenSource(
  user: AuthorizedUser,
  options: GoogleTokenSourceOptions,
): CredentialSource<string> {
  return async () => {
    const response = await postTokenForm(options.fetch, user.tokenUri, {
      grant_type: 'refresh_token',
      refresh_token: user.refreshToken,
      client_id: user.clientId,
      client_secret: user.clientSecret,
    })
    return readGoogleToken(response, "The user credentials' token endpoint", options.now)
  }
}

/** The token source of a credential file, read. */
export function credentialFileTokenSource(
  file: GoogleCredentialFile,
  options: GoogleTokenSourceOptions,
): CredentialSource<string> {
  return file.type === 'service_account'
    ? serviceAccountTokenSource(file.key, options)
    : authorizedUserTokenSource(file.user, options)
}

/** The secrets a credential file holds, for the scrubber. */
export function credentialFileSecrets(file: GoogleCredentialFile): string[] {
  if (file.type === 'authorized_user') return [file.user.clientSecret, file.user.refreshToken]
  // The PEM whole, and its base64 lines, which an error could quote one at a time.
  const lines = file.key.privateKey
    .split(/\s+/)
    .filter((line) => line.length >= 16 && !line.startsWith('-'))
  return [file.key.privateKey, ...lines]
}

/**
 * Whether a key file's `token_uri` may receive its assertion or refresh token: https, or plain
 * http to this machine only (a test's token endpoint). A file must not steer them in clear text.
 */
function secureTokenUri(uri: string): boolean {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return false
  }
  if (url.protocol === 'https:') return true
  return url.protocol === 'http:' && /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/.test(url.hostname)
}
