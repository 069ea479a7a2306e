import * as z from 'zod/mini'
import { checkAlways } from '../../internal/check-always'
import { createAwsAuth } from '../aws/aws-auth'
import { awsCredentialProblems, AwsCredentialsConfigError } from '../aws/aws-credential-problems'
import { UpstreamEntryError } from '../entry-error'
import type { AwsCredentialCallback } from '../aws/aws-credential-sources'
import { upstreamSelectionShape } from '../entry-shape'
import { createHttpProvider } from '../http-provider'
import type { UpstreamKind, UpstreamKindContext, UpstreamKindSchema } from '../kind'
import type { PreparedRequest } from '../prepared-request'
import { upstreamSpecificationVersion, type UpstreamCall, type UpstreamProvider } from '../provider'
import { prepareInvokeBody } from './anthropic-body'
import { withBedrockAnswers } from './bedrock-answer'
import { bedrockSurcharge } from './profile-surcharge'
import { normaliseBedrockError } from './bedrock-errors'
import { readBedrockStream, type BedrockApi } from './bedrock-stream'
import { bedrockBaseUrl } from './endpoint'
import { bedrockWire } from './wire'

/** An AWS region name: `us-east-1`, `eu-central-2`, `us-gov-west-1`, `ap-southeast-4`. */
const regionPattern = /^[a-z]{2}(?:-[a-z]+)+-\d+$/

/** The schema of a `{ "provider": "bedrock", … }` entry. */
export function bedrockEntrySchema() {
  const secret = () => z.optional(z.string().check(z.minLength(1, 'expected a non-empty value')))
  return z
    .strictObject({
      provider: z.literal('bedrock'),
      id: z.optional(z.string().check(z.minLength(1))),
      region: z
        .string({ error: 'a bedrock upstream needs its AWS "region" (for example "us-east-1")' })
        .check(z.regex(regionPattern, 'expected an AWS region such as "us-east-1"')),
      baseUrl: z.optional(z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' })),
      accessKeyId: secret(),
      secretAccessKey: secret(),
      sessionToken: secret(),
      apiKey: secret(),
      roleArn: z.optional(
        z
          .string()
          .check(z.regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/, 'expected an IAM role ARN')),
      ),
      /** Code only: a callback that fetches AWS credentials (refreshed before they expire). */
      credentials: z.optional(
        z.custom<AwsCredentialCallback>(
          (value) => typeof value === 'function',
          'expected a function returning AWS credentials',
        ),
      ),
      weight: z.optional(z.number().check(z.positive())),
      ...upstreamSelectionShape(),
    })
    .check(
      z.superRefine(
        (entry, context) => {
          // Empty values and a missing region are the fields' own issues.
          for (const { field, message } of awsCredentialProblems(entry)) {
            if (field === 'region' || message.endsWith('is empty')) continue
            context.addIssue({ code: 'custom', path: [field], message, input: entry })
          }
        },
        { when: checkAlways },
      ),
    )
}

/** A `bedrock` entry, checked. */
export type BedrockEntry = z.output<ReturnType<typeof bedrockEntrySchema>>

/**
 * AWS Bedrock Runtime: Claude over InvokeModel in an `anthropic` group, every other model over
 * the Converse API in a `converse` group. Calls are signed with SigV4 (or carry a Bedrock API
 * key), streams arrive in AWS's binary event stream and are read as the family's SSE, and AWS's
 * errors are put in the family's shape. See docs/aws-bedrock.md.
 */
export const bedrockKind: UpstreamKind<BedrockEntry> = {
  specificationVersion: upstreamSpecificationVersion,
  name: 'bedrock',
  protocols: ['anthropic', 'converse'],
  schema: () => bedrockEntrySchema() as UpstreamKindSchema<BedrockEntry>,
  create: (settings, context) => createBedrockUpstream(settings, context),
}

/** The upstream of a `bedrock` entry. */
function createBedrockUpstream(
  settings: BedrockEntry,
  context: UpstreamKindContext,
): UpstreamProvider {
  const { id, protocol, fetch } = context
  const api: BedrockApi = protocol === 'anthropic' ? 'invoke' : 'converse'
  // SigV4 (or a Bedrock API key's bearer header) over the request exactly as it is sent.
  const auth = awsAuthOf(settings, context)
  const provider = withBedrockAnswers(
    createHttpProvider({
      id,
      protocol,
      baseUrl: bedrockBaseUrl(settings, context.env),
      sign: auth.sign,
      secrets: auth.secrets,
      renewal: auth.renewal,
      weight: settings.weight,
      maxConcurrent: settings.maxConcurrent,
      fetch,
      wire: bedrockWire(api),
      prepare: (request, call) => prepareBedrock(request, call, api),
      readStream: (answer) => readBedrockStream(answer, api, protocol),
      normaliseError: (body, status) => normaliseBedrockError(body, status, protocol),
    }),
  )
  return Object.assign(provider, { priceSurcharge: bedrockSurcharge })
}

/**
 * The entry's signing. A credential problem left for creation (no credentials, and no AWS chain
 * on this runtime) is reported at its field as a config error.
 */
function awsAuthOf(settings: BedrockEntry, context: UpstreamKindContext) {
  try {
    return createAwsAuth(settings, context, { service: 'bedrock' })
  } catch (error) {
    if (!(error instanceof AwsCredentialsConfigError)) throw error
    const [first] = error.problems
    throw new UpstreamEntryError(first?.message ?? error.message, first?.field)
  }
}

/** The request as Bedrock takes it: its stream `accept`, and a Claude body as InvokeModel wants it. */
function prepareBedrock(
  request: PreparedRequest,
  call: UpstreamCall,
  api: BedrockApi,
): PreparedRequest {
  // Bedrock answers a stream in its binary event stream, whatever is asked: say so.
  request.headers['accept'] = call.stream
    ? 'application/vnd.amazon.eventstream'
    : 'application/json' // lookup-safe: a prototype-less record
  return api === 'invoke' ? prepareInvokeBody(request, call) : request
}
