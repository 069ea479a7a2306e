/**
 * Where a Bedrock upstream is reached, and how a model id goes into its paths.
 *
 * @module
 */

import { awsEndpoint } from '../aws/aws-endpoints'

/** The settings that decide the endpoint. */
export type BedrockEndpointSettings = { region: string; baseUrl?: string | undefined }

/**
 * The Bedrock Runtime endpoint of an upstream: its `baseUrl` when the entry gives one; else AWS's
 * own override variables, as the AWS SDKs read them (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, then
 * `AWS_ENDPOINT_URL`, both ignored when `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is `true`); else
 * `https://bedrock-runtime.{region}.amazonaws.com`. The variables are read once, when the
 * upstream is built, from the kind context's `env` (the config's `env`, else `process.env` where
 * the runtime has one).
 *
 * @see https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html
 */
export function bedrockBaseUrl(
  settings: BedrockEndpointSettings,
  env: Readonly<Record<string, unknown>> = {},
): string {
  if (settings.baseUrl !== undefined) return settings.baseUrl.replace(/\/+$/, '')
  return (
    awsEndpoint(env, 'BEDROCK_RUNTIME') ??
    `https://bedrock-runtime.${settings.region}.amazonaws.com`
  )
}

/**
 * A model id (or ARN) as one path segment, encoded once: `:` becomes `%3A` and an ARN's `/`
 * `%2F`, as the AWS SDKs send them. The SigV4 canonical request encodes the path once more
 * (`%253A`); that is the signer's business, on the URL as sent.
 */
export function modelPathSegment(modelId: string): string {
  return encodeURIComponent(modelId)
}

/** The geographic prefixes of Bedrock's system inference profiles (`us.anthropic.…`). */
const profilePrefix = /^(?:us|us-gov|eu|apac|jp|au|ca|global)\.(?=[a-z0-9-]+\.)/

/**
 * The foundation model id behind an id Bedrock accepts, for the operations that take only a
 * foundation model (CountTokens): an inference profile's geographic prefix dropped
 * (`us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `anthropic.claude-sonnet-4-5-20250929-v1:0`),
 * a system profile's ARN cut to its profile id first. Other ids and ARNs (an application
 * inference profile, a provisioned model) are returned as they are.
 */
export function foundationModelId(modelId: string): string {
  const profileArn = /^arn:aws[a-z-]*:bedrock:[^:]*:[^:]*:inference-profile\/(.+)$/.exec(modelId)
  const id = profileArn === null ? modelId : profileArn[1]!
  return profilePrefix.test(id) ? id.replace(profilePrefix, '') : modelId
}
