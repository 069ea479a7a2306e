import { readFile } from 'node:fs/promises'
import type { AwsCredentials } from '../../upstream/credentials/cloud-credentials'
import type { ExpiringCredential } from '../../upstream/credentials/credential-cache'
import { askEndpoint, credentialsOfJson } from './aws-http'
import type { ChainOptions } from './chain-options'

/** ECS's credentials host for `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI`. */
const ecsHost = 'http://169.254.170.2'

/**
 * Hosts a plain-http `AWS_CONTAINER_CREDENTIALS_FULL_URI` may name, as AWS's SDKs allow: the
 * loopback, ECS's 169.254.170.2 and EKS Pod Identity's 169.254.170.23 / fd00:ec2::23. Any other
 * host must be https, so the token never crosses a network in clear.
 */
function allowedHttpHost(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname) ||
    hostname === '[::1]' ||
    hostname === '169.254.170.2' ||
    hostname === '169.254.170.23' ||
    hostname === '[fd00:ec2::23]'
  )
}

/** The container endpoint's URL from the environment, or `undefined` when none is set. */
export function containerEndpoint(env: ChainOptions['env']): string | undefined {
  const relative = env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI
  if (relative) return `${ecsHost}${relative.startsWith('/') ? '' : '/'}${relative}`
  const full = env.AWS_CONTAINER_CREDENTIALS_FULL_URI
  if (!full) return undefined
  let url: URL
  try {
    url = new URL(full)
  } catch {
    throw new Error('AWS_CONTAINER_CREDENTIALS_FULL_URI is not a URL.')
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && allowedHttpHost(url.hostname)))
    return full
  throw new Error(
    'AWS_CONTAINER_CREDENTIALS_FULL_URI must be https, or http to the loopback, 169.254.170.2, 169.254.170.23 or fd00:ec2::23.',
  )
}

/**
 * Credentials of the container's endpoint (ECS task role, EKS Pod Identity): a GET with the
 * authorization token, read afresh from `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` each time (EKS
 * rotates it), else `AWS_CONTAINER_AUTHORIZATION_TOKEN`.
 */
export async function containerCredentials(
  url: string,
  options: ChainOptions,
): Promise<ExpiringCredential<AwsCredentials>> {
  const env = options.env
  const tokenFile = env.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE
  const token = tokenFile
    ? (
        await readFile(tokenFile, 'utf8').catch(() => {
          throw new Error('AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE could not be read.')
        })
      ).trim()
    : env.AWS_CONTAINER_AUTHORIZATION_TOKEN
  if (token !== undefined && /[\r\n]/.test(token)) {
    throw new Error('The container authorization token has a line break.')
  }
  const answer = await askEndpoint(url, {
    ...(token ? { headers: { authorization: token } } : {}),
    timeoutMs: options.timeoutMs ?? 2_000,
    fetch: options.fetch,
  })
  if (answer.status !== 200) {
    throw new Error(`The container credentials endpoint answered ${answer.status}.`)
  }
  return credentialsOfJson(answer.text, 'The container credentials endpoint')
}
