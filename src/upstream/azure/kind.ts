import * as z from 'zod/mini'
import { httpEntryShape, httpUpstreamPoolShape, upstreamSelectionShape } from '../entry-shape'
import { createHttpProvider } from '../http-provider'
import type { UpstreamKind, UpstreamKindSchema } from '../kind'
import { upstreamSpecificationVersion } from '../provider'
import { azureAuth, type AzureTokenProvider } from './azure-auth'
import { normaliseAzureError } from './content-filter'
import { azureResourceUrl, azureWire } from './wire'

const nonEmpty = () => z.string().check(z.minLength(1, 'expected a non-empty string'))

/** The schema of an `{ "provider": "azure", … }` entry. */
export function azureEntrySchema() {
  return z
    .strictObject({
      provider: z.literal('azure'),
      ...httpEntryShape(),
      apiVersion: z.optional(
        z
          .string()
          .check(
            z.regex(
              /^[0-9A-Za-z][0-9A-Za-z.-]*$/,
              'expected an Azure OpenAI api-version such as "2024-10-21"',
            ),
          ),
      ),
      entra: z.optional(
        z.strictObject({
          tenantId: nonEmpty(),
          clientId: nonEmpty(),
          clientSecret: nonEmpty(),
          authorityHost: z.optional(
            z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }),
          ),
        }),
      ),
      credentials: z.optional(
        z.custom<AzureTokenProvider>(
          (value) => typeof value === 'function',
          'expected a function (scope) => token',
        ),
      ),
      /** Client calls of every protocol go to the Responses API (`/openai/v1/responses`). */
      responses: z.optional(z.boolean()),
      ...upstreamSelectionShape(),
      ...httpUpstreamPoolShape(),
    })
    .check(
      z.superRefine((entry, payload) => {
        const given = (['apiKey', 'apiKeys', 'entra', 'credentials'] as const).filter(
          (field) => entry[field] !== undefined,
        )
        if (given.length > 1)
          payload.issues.push({
            code: 'custom',
            message: `give one credential: ${given.map((field) => `"${field}"`).join(' or ')}`,
            path: [given[1]!],
            input: entry,
          })
      }),
    )
}

/** An `azure` entry, checked. */
export type AzureEntry = z.output<ReturnType<typeof azureEntrySchema>>

/**
 * Azure OpenAI: OpenAI's models deployed on an Azure resource, over the v1 API or the dated
 * deployment URLs, with an `api-key`, an Entra service principal, a token callback or the
 * runtime's managed identity. Content-filter refusals are rewritten to name the filters.
 */
export const azureKind: UpstreamKind<AzureEntry> = {
  specificationVersion: upstreamSpecificationVersion,
  name: 'azure',
  protocols: ['openai'],
  schema: () => azureEntrySchema() as unknown as UpstreamKindSchema<AzureEntry>,
  create(settings, context) {
    const auth = azureAuth(settings, context)
    return createHttpProvider({
      id: context.id,
      protocol: settings.responses === true ? 'responses' : 'openai',
      baseUrl: azureResourceUrl(settings.baseUrl),
      apiKey: settings.apiKey,
      apiKeys: settings.apiKeys,
      headers: settings.headers,
      weight: settings.weight,
      maxConcurrent: settings.maxConcurrent,
      fetch: context.fetch,
      wire: azureWire(settings.apiVersion),
      normaliseError: normaliseAzureError,
      ...(auth.kind === 'key'
        ? {}
        : { sign: auth.sign, renewal: auth.renewal, secrets: auth.secrets }),
    })
  },
}
