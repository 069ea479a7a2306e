import * as z from 'zod/mini'
import type { UpstreamProvider } from '../upstream/provider'
import { versionProblem } from '../upstream/kind'
import { anthropicEntrySchema } from '../upstream/anthropic/kind'
import { bedrockEntrySchema } from '../upstream/bedrock/kind'
import { azureEntrySchema } from '../upstream/azure/kind'
import { geminiEntrySchema } from '../upstream/gemini/kind'
import { mockEntrySchema } from '../upstream/mock/kind'
import { openaiEntrySchema, openaiEntryShape } from '../upstream/openai/kind'
import { vertexEntrySchema } from '../upstream/vertex/kind'
import { modelProfileOverridesSchema } from '../models/profile-schema'
import { hasFunction, nonNegativeInt, oneOf, positiveInt } from './schema-parts'
import type { buildSpendSchemas } from './spend-schema'
import { groupSelectionShape } from './failover-schema'

/**
 * A group's schema (`groups[]`): its id and protocol, its models (call names, or entries with an
 * upstream model, a profile, a price and fallbacks), its upstreams (the mock, HTTP upstreams,
 * provider objects), its retry policy and its upstream selection. Built with the rest of the
 * config schema, on its first use; `spend` is the config's money parts, shared with the keys.
 */
export function buildGroupSchema(spend: ReturnType<typeof buildSpendSchemas>) {
  const groupId = z
    .string()
    .check(
      z.regex(
        /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
        'group ids start with a letter or digit and use only letters, digits, ".", "_" and "-"',
      ),
    )

  const modelName = z.string().check(z.minLength(1, 'expected a non-empty model name'))
  const modelObject = z.strictObject({
    name: modelName,
    upstreamModel: z.optional(modelName),
    profile: z.optional(modelProfileOverridesSchema()),
    /** This entry's price over the catalogue's; `false`: unpriced. */
    price: z.optional(spend.priceOrFalse),
    /** `<group>/<model>` call names tried in order once this group has no upstream left. */
    fallbacks: z.optional(
      z.array(z.string().check(z.regex(/^[^/]+\/.+$/, 'expected "<group>/<model>"'))),
    ),
  })

  /** A model entry: a call name, or `{name, upstreamModel?, profile?}`. */
  const modelEntry = oneOf<string | z.output<typeof modelObject>>(
    [modelName, modelObject],
    (value) =>
      typeof value === 'string'
        ? modelName
        : typeof value === 'object' && value !== null
          ? modelObject
          : 'expected a call name or {"name", "upstreamModel"?, "profile"?}',
  )

  /** An entry without `provider`: an HTTP upstream of the group's own family. */
  const httpUpstream = z.strictObject(openaiEntryShape())
  /** Entries that name a built-in kind. */
  const builtInUpstreams = {
    openai: openaiEntrySchema(),
    anthropic: anthropicEntrySchema(),
    gemini: geminiEntrySchema(),
    bedrock: bedrockEntrySchema(),
    azure: azureEntrySchema(),
    vertex: vertexEntrySchema(),
    mock: mockEntrySchema(),
  }
  type BuiltInEntry = z.output<(typeof builtInUpstreams)[keyof typeof builtInUpstreams]>
  /**
   * An entry that names a kind of the application's (`upstreamKinds`): checked here as far as
   * the gateway knows it, then by the kind's own schema (`config/kind-checks.ts`).
   */
  const kindUpstream = z.looseObject({
    provider: z.string().check(z.minLength(1)),
    id: z.optional(z.string().check(z.minLength(1))),
  })

  const customUpstream = z.custom<UpstreamProvider>(
    (value) => hasFunction(value, 'send'),
    'expected an UpstreamProvider object',
  )

  type UpstreamOutput =
    BuiltInEntry | z.output<typeof httpUpstream> | z.output<typeof kindUpstream> | UpstreamProvider

  /** An upstream entry: one of a kind (`provider`), an HTTP upstream, or a provider object. */
  const upstream = oneOf<UpstreamOutput>(
    [httpUpstream, ...Object.values(builtInUpstreams), kindUpstream, customUpstream],
    (value) => {
      if (hasFunction(value, 'send')) {
        const version = (value as UpstreamProvider).specificationVersion
        return (
          (version === undefined ? undefined : versionProblem('the provider', version)) ??
          customUpstream
        )
      }
      if (typeof value !== 'object' || value === null || !('provider' in value)) return httpUpstream
      const kind = value.provider
      if (typeof kind !== 'string') return 'expected "provider" to name an upstream kind'
      // lookup-safe: a literal table of the built-in kinds, asked with `Object.hasOwn` first
      return Object.hasOwn(builtInUpstreams, kind)
        ? builtInUpstreams[kind as keyof typeof builtInUpstreams]
        : kindUpstream
    },
  )

  /** An upstream entry as written. */
  type UpstreamInput =
    | z.input<(typeof builtInUpstreams)[keyof typeof builtInUpstreams]>
    | z.input<typeof httpUpstream>
    | z.input<typeof kindUpstream>
    | UpstreamProvider

  // Failover: how a group's calls are retried; defaults in `defaultRetryPolicy`.
  const retrySettings = z.strictObject({
    attempts: z.optional(z.int().check(z.minimum(1), z.maximum(20))),
    deadlineMs: z.optional(nonNegativeInt()),
    backoffMs: z.optional(nonNegativeInt()),
    maxBackoffMs: z.optional(nonNegativeInt()),
    maxRetryAfterMs: z.optional(nonNegativeInt()),
    budget: z.optional(
      z.strictObject({
        share: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
        minRetries: z.optional(nonNegativeInt()),
        windowMs: z.optional(positiveInt()),
      }),
    ),
  })

  const group = z.strictObject({
    id: groupId,
    protocol: z.enum(['openai', 'anthropic', 'gemini', 'converse'], {
      error: 'expected "openai", "anthropic", "gemini" or "converse"',
    }),
    models: z
      .array(modelEntry)
      .check(z.minLength(1, 'a group serves at least one model')) as z.ZodMiniType<
      (string | z.output<typeof modelObject>)[],
      (string | z.input<typeof modelObject>)[]
    >,
    upstreams: z
      .array(upstream)
      .check(z.minLength(1, 'a group needs at least one upstream')) as z.ZodMiniType<
      UpstreamOutput[],
      UpstreamInput[]
    >,
    retry: z.optional(retrySettings),
    /** The response cache (docs/response-cache.md): off unless set. */
    cache: z.optional(
      z.strictObject({
        ttlSeconds: z.int().check(z.minimum(1), z.maximum(2_592_000)),
        scope: z.optional(
          z.enum(['key', 'team', 'organisation'], {
            error: 'expected "key", "team" or "organisation"',
          }),
        ),
        toolCalls: z.optional(z.boolean()),
        maxEntryBytes: z.optional(z.int().check(z.minimum(1024), z.maximum(16_777_216))),
      }),
    ),
    /** × the list price of this group's models (a resale margin). */
    priceMultiplier: z.optional(spend.priceMultiplier),
    ...groupSelectionShape(),
  })

  return group
}
