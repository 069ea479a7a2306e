import type { FieldDoc } from '../../internal/field-doc'
import { credentialsCallbackFieldDoc } from '../credentials/field-docs'

/**
 * The fields of a `bedrock` entry of its own, by path in the entry (`id`, `baseUrl`, `apiKey`,
 * `weight` and `maxConcurrent` share the HTTP kinds' descriptions).
 */
export const bedrockFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  region:
    'The AWS region of a `bedrock` upstream (`us-east-1`): its endpoint `https://bedrock-runtime.{region}.amazonaws.com` and its SigV4 scope.',
  accessKeyId: {
    text: 'A `bedrock` upstream\'s AWS access key id, with `secretAccessKey` (and `sessionToken` for temporary credentials). Usually `"${AWS_ACCESS_KEY_ID}"`.',
    defaultText: 'the AWS credential chain (on Node)',
  },
  secretAccessKey: {
    text: 'The secret of `accessKeyId`; it signs, and is never sent nor shown.',
    defaultText: 'none',
  },
  sessionToken: {
    text: 'The session token of temporary AWS credentials (`ASIA…` access key ids).',
    defaultText: 'none',
  },
  credentials: credentialsCallbackFieldDoc,
  roleArn: {
    text: "An IAM role a `bedrock` upstream assumes through STS with its credentials, signing with the role's short-lived ones.",
    defaultText: 'none',
  },
}
