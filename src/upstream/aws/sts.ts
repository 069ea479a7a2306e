import type { AwsCredentials } from '../credentials/cloud-credentials'
import type { ExpiringCredential } from '../credentials/credential-cache'
import { readUpstreamText } from '../read-upstream-answer'
import { SigningKeys, signRequest, uriEncode } from './sigv4'
import { elementBody, elementText, maxStsAnswerBytes } from './sts-xml'

/** The session name the gateway's role sessions carry in CloudTrail. */
export const defaultRoleSessionName = 'model-gateway'

/** Where and how an STS call is sent. */
type StsCall = {
  /** STS's endpoint: `https://sts.{region}.amazonaws.com`, or `AWS_ENDPOINT_URL_STS`. */
  readonly endpoint: string
  readonly fetch?: typeof fetch | undefined
}

/** What `assumeRole` needs. */
export type AssumeRoleOptions = StsCall & {
  /** The credentials that assume the role (signed with SigV4, signing name `sts`). */
  readonly credentials: AwsCredentials
  readonly roleArn: string
  readonly region: string
  readonly now: () => number
  readonly roleSessionName?: string | undefined
  /** How long the role's credentials last, 900–43200 s; 3600 by default. */
  readonly durationSeconds?: number | undefined
}

const keys = new SigningKeys()

/**
 * STS AssumeRole: a SigV4-signed form POST to STS, whose XML answer gives the role's session
 * credentials and when they expire. Redirects are not followed; an error answer is a
 * error carrying STS's code and message (never a credential); the signer wraps it in the
 * gateway's own error, so a client never sees the account or role STS names.
 */
export async function assumeRole(
  options: AssumeRoleOptions,
): Promise<ExpiringCredential<AwsCredentials>> {
  const request = formRequest(options.endpoint, {
    Action: 'AssumeRole',
    Version: '2011-06-15',
    RoleArn: options.roleArn,
    RoleSessionName: options.roleSessionName ?? defaultRoleSessionName,
    DurationSeconds: String(options.durationSeconds ?? 3600),
  })
  await signRequest(request, {
    credentials: options.credentials,
    region: options.region,
    service: 'sts',
    now: options.now(),
    keys,
  })
  return stsCredentials(await post(request, options.fetch), 'AssumeRole')
}

/** What `assumeRoleWithWebIdentity` needs. */
export type WebIdentityOptions = StsCall & {
  /** The OIDC token (EKS's projected service-account token), read afresh for each call. */
  readonly webIdentityToken: string
  readonly roleArn: string
  readonly roleSessionName?: string | undefined
}

/**
 * STS AssumeRoleWithWebIdentity: unsigned (the token is the proof), a form POST whose XML answer
 * gives the role's session credentials.
 */
export async function assumeRoleWithWebIdentity(
  options: WebIdentityOptions,
): Promise<ExpiringCredential<AwsCredentials>> {
  const request = formRequest(options.endpoint, {
    Action: 'AssumeRoleWithWebIdentity',
    Version: '2011-06-15',
    RoleArn: options.roleArn,
    RoleSessionName: options.roleSessionName ?? defaultRoleSessionName,
    WebIdentityToken: options.webIdentityToken,
  })
  return stsCredentials(await post(request, options.fetch), 'AssumeRoleWithWebIdentity')
}

/** An STS request: a form POST of `fields` to the endpoint's root (signed or not by the caller). */
type StsRequest = { url: string; method: string; headers: Record<string, string>; body: string }

function formRequest(endpoint: string, fields: Record<string, string>): StsRequest {
  return {
    url: `${endpoint}/`,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body: form(fields),
  }
}

function form(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `${name}=${uriEncode(value)}`)
    .join('&')
}

type StsAnswer = { status: number; text: string }

async function post(request: StsRequest, fetcher: typeof fetch | undefined): Promise<StsAnswer> {
  let response: Response
  try {
    response = await (fetcher ?? fetch)(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
    })
  } catch (error) {
    throw new Error(`AWS STS could not be reached at ${request.url}.`, { cause: error })
  }
  const text = await readUpstreamText(
    // A WHATWG reader is a chunk source.
    response.body?.getReader() ?? null,
    maxStsAnswerBytes,
  )
  return { status: response.status, text }
}

/** The credentials of a 200 answer, or the error of any other. */
function stsCredentials(answer: StsAnswer, action: string): ExpiringCredential<AwsCredentials> {
  if (answer.status !== 200) {
    const code = elementText(answer.text, 'Code') ?? `HTTP ${answer.status}`
    const message = (elementText(answer.text, 'Message') ?? '').slice(0, 300)
    throw new Error(`AWS STS ${action} failed: ${code}${message === '' ? '' : `: ${message}`}`)
  }
  const block = elementBody(answer.text, 'Credentials')
  const accessKeyId = block === undefined ? undefined : elementText(block, 'AccessKeyId')
  const secretAccessKey = block === undefined ? undefined : elementText(block, 'SecretAccessKey')
  const sessionToken = block === undefined ? undefined : elementText(block, 'SessionToken')
  const expiration = block === undefined ? undefined : elementText(block, 'Expiration')
  const expiresAt = expiration === undefined ? Number.NaN : Date.parse(expiration)
  if (!accessKeyId || !secretAccessKey || !sessionToken || !Number.isFinite(expiresAt)) {
    throw new Error(`AWS STS ${action} answered without credentials and their expiration.`)
  }
  return { value: { accessKeyId, secretAccessKey, sessionToken }, expiresAt }
}
