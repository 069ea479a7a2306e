import type { AwsCredentials } from '../../upstream/credentials/cloud-credentials'
import type { ExpiringCredential } from '../../upstream/credentials/credential-cache'
import { askEndpoint, credentialsOfJson } from './aws-http'
import type { ChainOptions } from './chain-options'

/** The instance metadata service's address on EC2. */
const defaultEndpoint = 'http://169.254.169.254'
const credentialsPath = '/latest/meta-data/iam/security-credentials/'

/** Whether `AWS_EC2_METADATA_DISABLED` switches the instance metadata service off. */
export function imdsDisabled(env: ChainOptions['env']): boolean {
  return (env.AWS_EC2_METADATA_DISABLED ?? '').toLowerCase() === 'true'
}

/**
 * EC2 instance credentials over IMDSv2: `PUT /latest/api/token` for a session token, then, with
 * it, the role's name and the role's credentials. Each step gives up after 1 s (a machine that is
 * not on EC2 fails fast); `AWS_EC2_METADATA_SERVICE_ENDPOINT` moves the service.
 */
export async function imdsCredentials(
  options: ChainOptions,
): Promise<ExpiringCredential<AwsCredentials>> {
  const base = (options.env.AWS_EC2_METADATA_SERVICE_ENDPOINT || defaultEndpoint).replace(
    /\/+$/,
    '',
  )
  const ask = { timeoutMs: options.timeoutMs ?? 1_000, fetch: options.fetch }
  const tokenAnswer = await askEndpoint(`${base}/latest/api/token`, {
    ...ask,
    method: 'PUT',
    headers: { 'x-aws-ec2-metadata-token-ttl-seconds': '21600' },
  })
  if (tokenAnswer.status !== 200 || tokenAnswer.text === '') {
    throw new Error(`The instance metadata service answered ${tokenAnswer.status} for a token.`)
  }
  const headers = { 'x-aws-ec2-metadata-token': tokenAnswer.text.trim() }
  const roleAnswer = await askEndpoint(`${base}${credentialsPath}`, { ...ask, headers })
  const role = roleAnswer.text.split('\n')[0]?.trim() ?? ''
  if (roleAnswer.status !== 200 || role === '') {
    throw new Error(
      `The instance metadata service gave no role (${roleAnswer.status}): does the instance have a profile?`,
    )
  }
  const answer = await askEndpoint(`${base}${credentialsPath}${encodeURIComponent(role)}`, {
    ...ask,
    headers,
  })
  if (answer.status !== 200)
    throw new Error(
      `The instance metadata service answered ${answer.status} for the role's credentials.`,
    )
  const code = /"Code"\s*:\s*"([^"]*)"/.exec(answer.text)?.[1]
  if (code !== undefined && code !== 'Success')
    throw new Error(`The instance metadata service said ${code}.`)
  return credentialsOfJson(answer.text, 'The instance metadata service')
}
