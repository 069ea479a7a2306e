import { readFile } from 'node:fs/promises'
import type { AwsCredentials } from '../../upstream/credentials/cloud-credentials'
import type { ExpiringCredential } from '../../upstream/credentials/credential-cache'
import { assumeRoleWithWebIdentity } from '../../upstream/aws/sts'
import type { ChainOptions } from './chain-options'

/** Where a web identity role is assumed. */
export type WebIdentitySettings = {
  tokenFile: string
  roleArn: string
  sessionName?: string | undefined
  endpoint: string
}

/**
 * A role assumed with a web identity token (EKS's IAM roles for service accounts): the token file
 * is read afresh for each fetch (the kubelet rotates it), and sent unsigned to STS
 * AssumeRoleWithWebIdentity.
 */
export async function webIdentityCredentials(
  settings: WebIdentitySettings,
  options: ChainOptions,
): Promise<ExpiringCredential<AwsCredentials>> {
  let token: string
  try {
    token = (await readFile(settings.tokenFile, 'utf8')).trim()
  } catch {
    throw new Error(`The web identity token file ${settings.tokenFile} could not be read.`)
  }
  if (token === '') throw new Error(`The web identity token file ${settings.tokenFile} is empty.`)
  return assumeRoleWithWebIdentity({
    endpoint: settings.endpoint,
    roleArn: settings.roleArn,
    roleSessionName: settings.sessionName,
    webIdentityToken: token,
    fetch: options.fetch,
  })
}
