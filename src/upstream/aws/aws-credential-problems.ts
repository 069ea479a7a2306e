import type { CloudCredentialChains } from '../credentials/cloud-credentials'

/** A problem with an AWS entry's credential fields, at the field it names. */
export type AwsCredentialProblem = {
  /** The entry's field: `apiKey`, `secretAccessKey`, `sessionToken`, `region`… */
  readonly field: string
  readonly message: string
}

/** The credential fields `awsCredentialProblems` reads. */
type CredentialFields = {
  readonly region?: string | undefined
  readonly accessKeyId?: string | undefined
  readonly secretAccessKey?: string | undefined
  readonly sessionToken?: string | undefined
  readonly apiKey?: string | undefined
  readonly roleArn?: string | undefined
  readonly credentials?: unknown
}

/** An AWS region's shape: it goes into the host name and the credential scope. */
const awsRegion = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/

/** What it says when an entry gives no credentials and the runtime has no chain. */
export const noAwsCredentials =
  'no AWS credentials: give accessKeyId/secretAccessKey, apiKey or a credentials callback; on Node pass cloudCredentials: nodeCloudCredentials() (model-gateway/node)'

/**
 * The problems of an AWS entry's credential fields, each naming its field, for a kind's config
 * check: credentials given twice (`apiKey` with keys, a callback or a role — a Bedrock API key is
 * a bearer token and is never mixed with SigV4, LiteLLM #39166; keys with a callback), half a key
 * pair, a `sessionToken` without keys, an empty value, no region. With `context`, also an entry
 * that gives no credentials where the runtime has no AWS chain.
 */
export function awsCredentialProblems(
  settings: CredentialFields,
  context?: { readonly cloudCredentials?: CloudCredentialChains | undefined },
): AwsCredentialProblem[] {
  const problems: AwsCredentialProblem[] = []
  const given = (field: keyof CredentialFields): boolean => settings[field] !== undefined
  for (const field of [
    'region',
    'accessKeyId',
    'secretAccessKey',
    'sessionToken',
    'apiKey',
    'roleArn',
  ] as const) {
    if (settings[field] === '') problems.push({ field, message: `${field} is empty` })
  }
  if (!given('region')) {
    problems.push({ field: 'region', message: 'an AWS upstream needs a region' })
  } else if (settings.region !== '' && !awsRegion.test(settings.region!)) {
    problems.push({
      field: 'region',
      message: `"${settings.region}" is not an AWS region (us-east-1, eu-central-2, us-gov-west-1…)`,
    })
  }
  if (given('apiKey')) {
    for (const field of [
      'accessKeyId',
      'secretAccessKey',
      'sessionToken',
      'credentials',
      'roleArn',
    ] as const) {
      if (given(field)) {
        problems.push({
          field,
          message: `${field} given with apiKey: a Bedrock API key is sent alone as a bearer token, never with SigV4 credentials; give one or the other`,
        })
      }
    }
    return problems
  }
  if (given('accessKeyId') && !given('secretAccessKey')) {
    problems.push({ field: 'secretAccessKey', message: 'accessKeyId needs its secretAccessKey' })
  }
  if (given('secretAccessKey') && !given('accessKeyId')) {
    problems.push({ field: 'accessKeyId', message: 'secretAccessKey needs its accessKeyId' })
  }
  if (given('sessionToken') && !(given('accessKeyId') && given('secretAccessKey'))) {
    problems.push({
      field: 'sessionToken',
      message: 'sessionToken is the session of accessKeyId/secretAccessKey: give all three',
    })
  }
  if (given('credentials') && (given('accessKeyId') || given('secretAccessKey'))) {
    problems.push({
      field: 'credentials',
      message:
        'credentials (a callback) given with accessKeyId/secretAccessKey: give one or the other',
    })
  }
  if (given('credentials') && typeof settings.credentials !== 'function') {
    problems.push({
      field: 'credentials',
      message: 'credentials must be a function returning credentials',
    })
  }
  const anyKey = given('accessKeyId') || given('secretAccessKey') || given('credentials')
  if (context !== undefined && !anyKey && context.cloudCredentials?.aws === undefined) {
    problems.push({ field: 'accessKeyId', message: noAwsCredentials })
  }
  return problems
}

/** An AWS entry whose credential fields are wrong; `problems` name the fields. */
export class AwsCredentialsConfigError extends Error {
  readonly problems: readonly AwsCredentialProblem[]

  constructor(problems: readonly AwsCredentialProblem[]) {
    super(problems.map((problem) => `${problem.field}: ${problem.message}`).join('; '))
    this.name = 'AwsCredentialsConfigError'
    this.problems = problems
  }
}
