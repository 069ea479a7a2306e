import * as z from 'zod/mini'
import { credentialFor } from '../credentials/credential-failure'
import { claudeRegionalPremium, hasRegionalPremium } from '../../models/prices/claude-regional'
import { memoisedSurcharge, type PriceSurcharge } from '../../pricing/price-surcharge'
import { upstreamSelectionShape } from '../entry-shape'
import { createHttpProvider } from '../http-provider'
import type { UpstreamKind, UpstreamKindSchema } from '../kind'
import type { PreparedRequest } from '../prepared-request'
import { upstreamSpecificationVersion, type UpstreamProvider } from '../provider'
import { vertexCredentials, type GoogleTokenCallback } from './vertex-credentials'
import { prepareVertexPredict, withPredictEmbeddings } from './vertex-embeddings'
import { vertexAnthropicError, vertexGeminiError } from './vertex-errors'
import { vertexBaseUrl } from './vertex-host'
import { prepareVertexAnthropic, vertexAnthropicWire, vertexGeminiWire } from './vertex-wires'

/** The schema of a `{ "provider": "vertex", … }` entry. */
export function vertexEntrySchema() {
  return z.strictObject({
    provider: z.literal('vertex'),
    id: z.optional(z.string().check(z.minLength(1))),
    project: z
      .string()
      .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9.:_-]*$/, 'expected a Google Cloud project id')),
    region: z
      .string()
      .check(
        z.regex(
          /^[a-z0-9][a-z0-9-]*$/,
          'expected a location: "global", "us", "eu" or a region such as "us-east5"',
        ),
      ),
    baseUrl: z.optional(z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' })),
    serviceAccount: z.optional(
      z.union([
        z.string().check(z.minLength(1, 'expected a key file path or its JSON')),
        z.record(z.string(), z.unknown()),
      ]),
    ),
    credentials: z.optional(
      z.custom<GoogleTokenCallback>(
        (value) => typeof value === 'function',
        'expected a function returning an access token (in code only)',
      ),
    ),
    headers: z.optional(z.record(z.string(), z.string())),
    weight: z.optional(z.number().check(z.positive())),
    ...upstreamSelectionShape(),
  })
}

/** A `vertex` entry, checked. */
export type VertexEntry = z.output<ReturnType<typeof vertexEntrySchema>>

/**
 * Google Vertex AI: Gemini (`gemini` groups, the Google publisher) and Claude (`anthropic` groups,
 * the Anthropic publisher) in a project and location, with Google OAuth tokens from a service
 * account, a callback or Application Default Credentials, cached and renewed once when refused.
 */
export const vertexKind: UpstreamKind<VertexEntry> = {
  specificationVersion: upstreamSpecificationVersion,
  name: 'vertex',
  protocols: ['gemini', 'anthropic'],
  schema: () => vertexEntrySchema() as UpstreamKindSchema<VertexEntry>,
  create(settings, context): UpstreamProvider {
    const place = { project: settings.project, region: settings.region }
    const credentials = vertexCredentials(settings, context)
    const gemini = context.protocol === 'gemini'
    const provider = createHttpProvider({
      id: context.id,
      protocol: context.protocol,
      baseUrl: settings.baseUrl ?? vertexBaseUrl(settings.region),
      headers: settings.headers,
      weight: settings.weight,
      maxConcurrent: settings.maxConcurrent,
      fetch: context.fetch,
      wire: gemini ? vertexGeminiWire(place) : vertexAnthropicWire(place),
      prepare: gemini
        ? (request, call) =>
            call.operation === 'batch-embed-contents' ? prepareVertexPredict(request) : request
        : prepareVertexAnthropic,
      async sign(request) {
        request.headers['authorization'] =
          `Bearer ${await credentialFor(credentials.cache, 'Google', context.id)}`
        return request
      },
      renewal: {
        // Google answers an expired or revoked token with 401 UNAUTHENTICATED; a 403
        // (PERMISSION_DENIED) is a token without the right, which a new one would not fix.
        refused: (status) => status === 401,
        renew: (sent: PreparedRequest) => {
          const sentToken = sent.headers['authorization']?.replace(/^Bearer /, '')
          if (sentToken !== undefined) credentials.cache.invalidate(sentToken)
        },
      },
      normaliseError: gemini ? vertexGeminiError : vertexAnthropicError,
      secrets: credentials.secrets,
    })
    if (gemini) return withPredictEmbeddings(provider)
    const surcharge = vertexClaudeSurcharge(settings.region)
    return surcharge === undefined
      ? provider
      : Object.assign(provider, { priceSurcharge: surcharge })
  },
}

/**
 * The price of Claude in a Vertex location: 10% over the global endpoint's in a region or a
 * multi-region (`us`, `eu`), for Claude 4.5 and later (`claudeRegionalPremium`); `undefined` on
 * the global endpoint, where Claude costs Anthropic's own price. Google lists no such difference
 * for its own Gemini models.
 */
export function vertexClaudeSurcharge(
  region: string,
): ((upstreamModel: string) => PriceSurcharge | undefined) | undefined {
  if (region === 'global') return undefined
  return memoisedSurcharge((model) =>
    hasRegionalPremium(model) ? claudeRegionalPremium : undefined,
  )
}
